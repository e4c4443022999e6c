package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v2/clusters/selector-preview}: which of the organization's clusters a label
 * selector matches now, before an environment is saved with it. Only registered clusters are bound
 * by a selector; the others are listed with {@code registered: false} (they join when their agent
 * registers).
 */
@RestController
@RequestMapping("/api/v2/clusters")
public class ClusterSelectorController {
  private final ClusterService clusters;
  private final Access access;

  public ClusterSelectorController(ClusterService clusters, Access access) {
    this.clusters = clusters;
    this.access = access;
  }

  /** A cluster the selector matches. */
  record Match(
      UUID id, String name, String displayName, Map<String, String> labels, boolean registered) {}

  /**
   * @param selector the selector in kubectl's string form, e.g. {@code tier=production,!legacy}
   * @param clusters the clusters it matches, by name
   */
  record Preview(String selector, List<Match> clusters) {}

  @PostMapping("/selector-preview")
  Preview preview(@RequestBody(required = false) LabelSelector body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    if (body == null) {
      throw ApiException.invalid("body", "must be a label selector (use {} to match everything)");
    }
    Checks c = new Checks();
    LabelSelector selector = c.selector("selector", body);
    c.throwIfInvalid();
    List<Match> matched =
        clusters.list(caller.orgId(), Map.of()).stream()
            .filter(r -> selector.matches(r.effectiveLabels()))
            // A member or viewer sees only the clusters their teams' grants reach, as in the list.
            .filter(r -> access.clusterRole(caller, r).isPresent())
            .map(ClusterSelectorController::match)
            .toList();
    return new Preview(selector.describe(), matched);
  }

  private static Match match(ClusterRow r) {
    return new Match(r.id(), r.name(), r.displayName(), r.effectiveLabels(), r.usable());
  }
}
