package dev.gitopshq.hub.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.AuditEntry;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditQuery;
import dev.gitopshq.activities.audit.AuditVerification;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Instant;
import java.util.List;
import org.springframework.format.annotation.DateTimeFormat;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The audit log: filtered, newest first, with a cursor; and chain verification. */
@RestController
@RequestMapping("/api/v2/audit")
public class AuditController {
  private static final int MAX_LIMIT = 500;
  private final AuditLog audit;
  private final ObjectMapper json;

  public AuditController(AuditLog audit, ObjectMapper json) {
    this.audit = audit;
    this.json = json;
  }

  record EntryView(
      long seq,
      Instant at,
      Actor actor,
      String action,
      Target target,
      JsonNode details,
      String prevHash,
      String hash) {}

  record Actor(String type, String id, String name) {}

  record Target(String type, String id) {}

  /** A page of entries; pass {@code nextCursor} as {@code cursor} for the next (older) page. */
  record Page(List<EntryView> items, String nextCursor) {}

  @GetMapping
  Page search(
      @RequestParam(required = false) String actor,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String target,
      @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
          Instant from,
      @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
          Instant to,
      @RequestParam(required = false) String cursor,
      @RequestParam(defaultValue = "100") int limit) {
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    Checks.time("from", from);
    Checks.time("to", to);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw ApiException.invalid("limit", "must be between 1 and " + MAX_LIMIT);
    }
    Long before = null;
    if (cursor != null) {
      try {
        before = Long.parseLong(cursor);
      } catch (NumberFormatException e) {
        throw ApiException.invalid("cursor", "is not a cursor this API returned");
      }
    }
    List<AuditEntry> entries =
        audit.search(
            caller.orgId(), new AuditQuery(actor, action, target, from, to, before, limit));
    String next = entries.size() == limit ? Long.toString(entries.getLast().seq()) : null;
    return new Page(entries.stream().map(this::view).toList(), next);
  }

  @GetMapping("/verify")
  AuditVerification verify() {
    HubPrincipal caller = Authz.require(Permission.AUDIT_READ);
    return audit.verify(caller.orgId());
  }

  private EntryView view(AuditEntry e) {
    JsonNode details;
    try {
      details = json.readTree(e.details());
    } catch (Exception ex) {
      details = json.getNodeFactory().textNode(e.details());
    }
    return new EntryView(
        e.seq(),
        e.at(),
        new Actor(e.actorType(), e.actorId(), e.actorName()),
        e.action(),
        new Target(e.targetType(), e.targetId()),
        details,
        e.prevHash(),
        e.hash());
  }
}
