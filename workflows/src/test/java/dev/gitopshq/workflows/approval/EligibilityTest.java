package dev.gitopshq.workflows.approval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EligibilityTest {
  @Test
  void aDecisionWithoutRolesOrTeamsLeavesItToAdminsAndOwners() {
    assertThat(Eligibility.eligible(List.of(), List.of(), "admin", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of(), "owner", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of(), "member", List.of("platform"))).isFalse();
  }

  @Test
  void namedRolesOrTeamsDecideAndTheDefaultNoLongerApplies() {
    assertThat(Eligibility.eligible(List.of("member"), List.of(), "member", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of("sre"), "admin", List.of())).isFalse();
    assertThat(Eligibility.eligible(List.of(), List.of("sre"), "viewer", List.of("sre"))).isTrue();
    assertThat(Eligibility.eligible(List.of("admin"), List.of(), null, List.of())).isFalse();
    assertThat(Eligibility.roles(List.of(), List.of("sre"))).isEmpty();
  }
}
