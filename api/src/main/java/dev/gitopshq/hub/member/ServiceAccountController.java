package dev.gitopshq.hub.member;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.store.ServiceAccountRow;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
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

  public ServiceAccountController(PeopleService people) {
    this.people = people;
  }

  record CreateServiceAccount(String name, String description, List<String> scopes) {}

  record ServiceAccountView(
      String id, String name, String description, List<String> scopes, Instant createdAt) {
    static ServiceAccountView of(ServiceAccountRow a) {
      return new ServiceAccountView(
          a.id().toString(), a.name(), a.description(), a.scopes(), a.createdAt());
    }
  }

  record ServiceAccountList(List<ServiceAccountView> items) {}

  record TokenList(List<MemberController.TokenView> items) {}

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
    if (scopes.isEmpty()) {
      c.fail("scopes", "must list at least one scope, e.g. clusters:read");
    }
    for (int i = 0; i < scopes.size(); i++) {
      if (scopes.get(i) == null || Permission.fromScope(scopes.get(i)).isEmpty()) {
        c.fail("scopes[" + i + "]", "is not a known scope");
      }
    }
    c.throwIfInvalid();
    return ServiceAccountView.of(
        people.addServiceAccount(
            caller,
            body.name(),
            body.description() == null ? "" : body.description(),
            List.copyOf(scopes)));
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
    return MemberController.TokenView.of(t.row(), t.token());
  }

  @GetMapping("/{id}/tokens")
  TokenList tokens(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.SERVICE_ACCOUNTS_READ);
    return new TokenList(
        people.serviceAccountTokens(caller.orgId(), id).stream()
            .map(t -> MemberController.TokenView.of(t, null))
            .toList());
  }
}
