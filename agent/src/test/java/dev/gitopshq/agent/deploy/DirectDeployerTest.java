package dev.gitopshq.agent.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.testkube.TestKube;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The deployer's guards, against the Fabric8 mock. */
class DirectDeployerTest {
  TestKube kube;

  @BeforeEach
  void start() {
    kube = TestKube.start().seedDemo();
  }

  @AfterEach
  void stop() {
    kube.close();
  }

  static ApplyRelease release(String id) {
    return ApplyRelease.newBuilder()
        .setApplyId(id)
        .setProject("shop")
        .setEnvironment("dev")
        .addFiles(
            ApplyFile.newBuilder()
                .setPath("acme/web/configmap-web.yaml")
                .setContent(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: demo\n"))
        .build();
  }

  DirectDeployer deployer(boolean enabled, Clock clock) {
    return new DirectDeployer(enabled, DirectDeployConfig.defaults(), kube::client, clock, r -> {});
  }

  @Test
  void aRepeatOfAnApplyIdIsAnsweredWithTheFirstOutcomeWithoutApplyingAgain() {
    try (DirectDeployer d = deployer(true, Clock.systemUTC())) {
      ApplyResult first = d.run(release("dep-1:dev:c1"));
      ApplyResult again = d.run(release("dep-1:dev:c1"));
      assertThat(again).isEqualTo(first);
      assertThat(d.applies()).isEqualTo(1);
      d.run(release("dep-2:dev:c1"));
      assertThat(d.applies()).isEqualTo(2);
    }
  }

  @Test
  void withoutTheCapabilityNothingIsApplied() {
    try (DirectDeployer d = deployer(false, Clock.systemUTC())) {
      ApplyResult r = d.run(release("dep-1:dev:c1"));
      assertThat(r.getOutcome()).isEqualTo(ApplyResult.Outcome.REFUSED);
      assertThat(r.getError()).isEqualTo("this agent does not have the direct.deploy capability");
      assertThat(d.applies()).isZero();
      assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get()).isNull();
    }
  }

  @Test
  void anApplyPastItsDeadlineIsNotStarted() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:10:00Z"), ZoneOffset.UTC);
    try (DirectDeployer d = deployer(true, clock)) {
      ApplyResult r =
          d.run(
              release("dep-1:dev:c1").toBuilder()
                  .setDeadline(
                      Timestamp.newBuilder()
                          .setSeconds(Instant.parse("2026-01-01T00:00:00Z").getEpochSecond()))
                  .build());
      assertThat(r.getOutcome()).isEqualTo(ApplyResult.Outcome.EXPIRED);
      assertThat(d.applies()).isZero();
    }
  }
}
