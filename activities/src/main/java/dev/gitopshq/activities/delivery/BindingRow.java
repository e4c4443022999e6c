package dev.gitopshq.activities.delivery;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A Kustomize binding (kind {@code kustomize}) or manifest binding (kind {@code manifests}).
 *
 * @param source the base's or bundle's name
 * @param overlays JSON list of overlays ({@link #overlayList()})
 */
public record BindingRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    String name,
    String kind,
    UUID sourceId,
    String source,
    String overlays,
    Instant createdAt,
    Instant updatedAt,
    String kindScopes) {
  /** The scopes the row declares for kinds the hub does not know, by {@code group/Kind}. */
  public Map<String, String> kindScopeMap() {
    return kindScopes == null ? Map.of() : DeliveryJson.files(kindScopes);
  }

  public List<Overlay> overlayList() {
    return DeliveryJson.overlays(overlays);
  }
}
