package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.release.RollbackScope.Entry;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollbackScopeTest {
  @Test
  void allCoversEverythingAndNeedsNoLabel() {
    assertThat(RollbackScope.ALL.covers("production", "acme", "web")).isTrue();
    assertThat(RollbackScope.ALL.label("production")).isEmpty();
    assertThat(RollbackScope.fromJson(RollbackScope.ALL.toJson())).isEqualTo(RollbackScope.ALL);
  }

  @Test
  void anEntryMatchesOnlyItsEnvironmentTenantAndService() {
    RollbackScope s = RollbackScope.of(List.of(new Entry("staging", "acme", null)));
    assertThat(s.covers("staging", "acme", "web")).isTrue();
    assertThat(s.covers("staging", "acme", "worker")).isTrue();
    assertThat(s.covers("staging", "globex", "web")).isFalse();
    assertThat(s.covers("production", "acme", "web")).isFalse();
    assertThat(s.touches("production")).isFalse();
  }

  @Test
  void anEntryWithoutEnvironmentAppliesInEveryEnvironment() {
    RollbackScope s = RollbackScope.of(List.of(new Entry(null, null, "web")));
    assertThat(s.covers("staging", "acme", "web")).isTrue();
    assertThat(s.covers("production", "globex", "web")).isTrue();
    assertThat(s.covers("production", "globex", "worker")).isFalse();
  }

  @Test
  void labelsNameTheTenantsAndServicesOfTheEnvironment() {
    RollbackScope s =
        RollbackScope.of(
            List.of(
                new Entry("production", "acme", "web"),
                new Entry(null, "globex", null),
                new Entry("staging", "initech", null)));
    assertThat(s.label("production")).isEqualTo("(tenant acme, service web; tenant globex)");
    assertThat(s.label("staging")).isEqualTo("(tenant globex; tenant initech)");
  }

  @Test
  void roundTripsThroughTheStoredJsonWithoutNulls() {
    RollbackScope s = RollbackScope.of(List.of(new Entry("staging", "acme", null)));
    assertThat(s.toJson()).isEqualTo("[{\"environment\":\"staging\",\"tenant\":\"acme\"}]");
    assertThat(RollbackScope.fromJson(s.toJson())).isEqualTo(s);
  }

  @Test
  void refusesAnEmptyEntryOrAnEmptyList() {
    assertThatThrownBy(() -> new Entry(null, null, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RollbackScope.of(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
