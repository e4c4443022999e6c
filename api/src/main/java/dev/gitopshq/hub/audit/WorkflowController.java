package dev.gitopshq.hub.audit;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** For auditors: a workflow's Temporal history, and replaying histories against today's code. */
@RestController
public class WorkflowController {
  private final WorkflowHistories histories;
  private final ReplayService replays;

  public WorkflowController(WorkflowHistories histories, ReplayService replays) {
    this.histories = histories;
    this.replays = replays;
  }

  /** Temporal's history JSON, as the Temporal CLI writes it and WorkflowReplayer reads it. */
  @GetMapping(value = "/api/v2/workflows/{workflowId}/history", produces = "application/json")
  @ApiResponse(
      responseCode = "200",
      description = "Temporal's history JSON ({\"events\": [...]})",
      content = @Content(mediaType = "application/json", schema = @Schema(type = "object")))
  ResponseEntity<String> history(@PathVariable String workflowId) {
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    String json = WorkflowHistories.json(histories.history(caller.orgId(), workflowId));
    return ResponseEntity.ok()
        .contentType(MediaType.APPLICATION_JSON)
        .header(
            HttpHeaders.CONTENT_DISPOSITION,
            "attachment; filename=\"" + workflowId.replaceAll("[^A-Za-z0-9._-]", "_") + ".json\"")
        .body(json);
  }

  @PostMapping("/api/v2/audit/replays")
  ReplayRequests.Report replay(@RequestBody ReplayRequests.Replay body) {
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    return replays.replay(caller, body);
  }
}
