package dev.gitopshq.hub.adapter;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.adapter.AdapterService.Adapters;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/clusters/{id}/adapters}: whether the hub keeps the cluster's runtime adapter
 * objects ({@code auto}) or leaves them to its operators ({@code manual}), and what the agent
 * reported for each binding it wired.
 */
@RestController
@RequestMapping("/api/v2/clusters/{id}/adapters")
public class AdapterController {
  private final AdapterService adapters;

  public AdapterController(AdapterService adapters) {
    this.adapters = adapters;
  }

  /** The body of PUT: {@code {"adapter": "auto" | "manual"}}. */
  record AdapterPut(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String adapter) {}

  @GetMapping
  public Adapters get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return adapters.get(caller.orgId(), id);
  }

  @PutMapping
  public Adapters put(@PathVariable UUID id, @RequestBody AdapterPut body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    // Another organization's cluster is a 404 whatever the body says.
    adapters.get(caller.orgId(), id);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    if (!"auto".equals(body.adapter()) && !"manual".equals(body.adapter())) {
      throw ApiException.invalid("adapter", "must be auto or manual");
    }
    return adapters.set(caller, id, body.adapter());
  }

  /** Wires the cluster again now (e.g. after someone deleted an adapter object by hand). */
  @PostMapping("/rewire")
  @ResponseStatus(HttpStatus.ACCEPTED)
  public Map<String, String> rewire(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    adapters.rewire(caller, id);
    return Map.of("status", "started");
  }
}
