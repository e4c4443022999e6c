package dev.gitopshq.hub.member;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.ServiceAccountRow;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code /api/v2/service-accounts}: machine identities for CI/CD, with scoped tokens. */
@RestController
@RequestMapping("/api/v2/service-accounts")
public class ServiceAccountController {
  private final PeopleService people;
  private final Clock clock;

  public ServiceAccountController(PeopleService people, Clock clock) {
    this.people = people;
    this.clock = clock;
  }

  record CreateServiceAccount(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      String description,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<String> scopes) {}

  /** What PATCH may change; absent fields stay as they are. */
  record UpdateServiceAccount(
      String description, List<String> scopes, UUID ownerId, Boolean disabled) {}

  /**
   * A service account. {@code ownerId} is the member answerable for it (its creator until changed;
   * for an account made by a service account, that account's owner). {@code createdBy} is the
   * member who created it, {@code createdByServiceAccount} the service account that did. Neither
   * the owner nor the creator, nor anyone up a chain of accounts made by accounts (each account,
   * its creator and owner), may approve what the account requests.
   */
  record ServiceAccountView(
      String id,
      String name,
      String description,
      List<String> scopes,
      String createdBy,
      String ownerId,
      boolean disabled,
      Instant disabledAt,
      Instant createdAt,
      String createdByServiceAccount) {
    static ServiceAccountView of(ServiceAccountRow a) {
      return new ServiceAccountView(
          a.id().toString(),
          a.name(),
          a.description(),
          a.scopes(),
          a.createdBy() == null ? null : a.createdBy().toString(),
          a.ownerMemberId() == null ? null : a.ownerMemberId().toString(),
          a.disabledAt() != null,
          a.disabledAt(),
          a.createdAt(),
          a.createdByAccount() == null ? null : a.createdByAccount().toString());
    }
  }

  record ServiceAccountList(List<ServiceAccountView> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  ServiceAccountView create(@RequestBody CreateServiceAccount body) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    c.dnsLabel("name", body.name());
    c.text("description", body.description(), 512);
    List<String> scopes = body.scopes() == null ? List.of() : body.scopes();
    checkScopes(c, scopes);
    c.throwIfInvalid();
    return ServiceAccountView.of(
        people.addServiceAccount(
            caller,
            body.name(),
            body.description() == null ? "" : body.description(),
            List.copyOf(scopes)));
  }

  @GetMapping("/{id}")
  ServiceAccountView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_READ);
    return ServiceAccountView.of(people.serviceAccount(caller.orgId(), id));
  }

  @PatchMapping("/{id}")
  ServiceAccountView update(@PathVariable UUID id, @RequestBody UpdateServiceAccount body) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_WRITE);
    if (body == null
        || (body.description() == null
            && body.scopes() == null
            && body.ownerId() == null
            && body.disabled() == null)) {
      throw ApiException.invalid("body", "give description, scopes, ownerId and/or disabled");
    }
    Checks c = new Checks();
    c.text("description", body.description(), 512);
    if (body.scopes() != null) {
      checkScopes(c, body.scopes());
    }
    c.throwIfInvalid();
    return ServiceAccountView.of(
        people.updateServiceAccount(
            caller,
            id,
            body.description(),
            body.scopes() == null ? null : List.copyOf(body.scopes()),
            body.ownerId(),
            body.disabled()));
  }

  private static void checkScopes(Checks c, List<String> scopes) {
    if (scopes.isEmpty()) {
      c.fail("scopes", "must list at least one scope, e.g. clusters:read");
    }
    for (int i = 0; i < scopes.size(); i++) {
      if (scopes.get(i) == null || Permission.fromScope(scopes.get(i)).isEmpty()) {
        c.fail("scopes[" + i + "]", "is not a known scope");
      }
    }
  }

  @GetMapping
  ServiceAccountList list() {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_READ);
    return new ServiceAccountList(
        people.serviceAccounts(caller.orgId()).stream().map(ServiceAccountView::of).toList());
  }

  @PostMapping("/{id}/tokens")
  @ResponseStatus(HttpStatus.CREATED)
  MemberController.TokenView createToken(
      @PathVariable UUID id, @RequestBody MemberController.CreateToken body) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_WRITE);
    MemberController.TokenRequest req =
        MemberController.TokenRequest.validate(
            body == null ? null : body.name(),
            body == null ? null : body.expiresInDays(),
            body == null ? null : body.scopes());
    PeopleService.CreatedToken t =
        people.createServiceAccountToken(caller, id, req.name(), req.ttl(), req.scopes());
    return MemberController.TokenView.of(t.row(), t.token(), clock.instant());
  }

  @GetMapping("/{id}/tokens")
  MemberController.TokenList tokens(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_READ);
    people.serviceAccount(caller.orgId(), id);
    Instant now = clock.instant();
    return new MemberController.TokenList(
        people.serviceAccountTokens(caller.orgId(), id).stream()
            .map(t -> MemberController.TokenView.of(t, null, now))
            .toList());
  }

  /** Revokes one of the account's tokens; it is refused from the next request on. */
  @DeleteMapping("/{id}/tokens/{tokenId}")
  MemberController.TokenView revokeToken(@PathVariable UUID id, @PathVariable UUID tokenId) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_WRITE);
    return MemberController.TokenView.of(
        people.revokeServiceAccountToken(caller, id, tokenId), null, clock.instant());
  }
}
