package dev.gitopshq.hub.sso;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.identity.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupMappingTest {
  private static OidcProperties config(
      String defaultRole, OidcProperties.GroupMapping... mappings) {
    return new OidcProperties(
        "https://idp.example.com",
        "hub",
        null,
        "cli",
        null,
        null,
        null,
        null,
        null,
        defaultRole,
        List.of(mappings),
        "https://hub.example.com/api/v2/auth/oidc/callback",
        null,
        null,
        null);
  }

  private static OidcProperties.GroupMapping map(String group, String role, String... teams) {
    return new OidcProperties.GroupMapping(group, role, List.of(teams));
  }

  @Test
  void theHighestRoleWinsAndTeamsAreJoined() {
    OidcProperties c =
        config(
            null,
            map("devs", "member", "web"),
            map("ops", "admin", "platform"),
            map("qa", "viewer", "web"));
    GroupMapping.Grant g =
        GroupMapping.apply(c, List.of("qa", "ops", "devs", "unknown")).orElseThrow();
    assertThat(g.role()).isEqualTo(Role.ADMIN);
    assertThat(g.teams()).containsExactly("platform", "web");
    assertThat(g.matchedGroups()).containsExactly("devs", "ops", "qa");
  }

  @Test
  void unmappedUsersGetTheDefaultRoleOrNothing() {
    assertThat(GroupMapping.apply(config(null, map("ops", "admin")), List.of("devs"))).isEmpty();
    GroupMapping.Grant g =
        GroupMapping.apply(config("viewer", map("ops", "admin")), List.of()).orElseThrow();
    assertThat(g.role()).isEqualTo(Role.VIEWER);
    assertThat(g.teams()).isEmpty();
  }

  @Test
  void aMappingCannotMakeOwnersOrBadTeams() {
    assertThatThrownBy(() -> config(null, map("ops", "owner")))
        .hasMessageContaining("group-mappings[0].role");
    assertThatThrownBy(() -> config(null, map("ops", "admin", "Not A Label")))
        .hasMessageContaining("group-mappings[0].teams");
    assertThatThrownBy(() -> config("owner")).hasMessageContaining("default-role");
  }

  @Test
  void audiencesDefaultToTheCliClient() {
    assertThat(config(null).audiences()).containsExactly("cli");
    assertThat(config(null).enabled()).isTrue();
  }
}
