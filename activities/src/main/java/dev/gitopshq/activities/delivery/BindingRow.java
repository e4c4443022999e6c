package dev.gitopshq.activities.delivery;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.time.Instant;
import java.util.List;
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
    Instant updatedAt) {
  public List<Overlay> overlayList() {
    return DeliveryJson.overlays(overlays);
  }
}
