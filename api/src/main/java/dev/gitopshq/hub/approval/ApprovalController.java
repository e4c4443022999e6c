package dev.gitopshq.hub.approval;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.web.ApiException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code /api/v2/approvals}: the approvals inbox, and approve / reject. */
@RestController
public class ApprovalController {
  private final ApprovalInbox inbox;

  public ApprovalController(ApprovalInbox inbox) {
    this.inbox = inbox;
  }

  @GetMapping("/api/v2/approvals")
  ApprovalInbox.Inbox inbox() {
    return inbox.inbox(Authz.require(Permission.APPROVALS_READ));
  }

  @PostMapping("/api/v2/approvals/{id}/approve")
  @ResponseStatus(HttpStatus.ACCEPTED)
  ApprovalInbox.Voted approve(
      @PathVariable String id, @RequestBody(required = false) ApprovalInbox.VoteBody body) {
    return inbox.vote(
        Authz.require(Permission.APPROVALS_READ), id, true, body == null ? null : body.comment());
  }

  @PostMapping("/api/v2/approvals/{id}/reject")
  @ResponseStatus(HttpStatus.ACCEPTED)
  ApprovalInbox.Voted reject(
      @PathVariable String id, @RequestBody(required = false) ApprovalInbox.VoteBody body) {
    String comment = body == null ? null : body.comment();
    if (comment == null || comment.isBlank()) {
      throw ApiException.invalid("comment", "is required when rejecting: say why");
    }
    return inbox.vote(Authz.require(Permission.APPROVALS_READ), id, false, comment);
  }
}
