package dev.gitopshq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.FileIdentityStore;
import dev.gitopshq.agent.identity.IdentityStore;
import dev.gitopshq.agent.identity.IdentityStoreException;
import dev.gitopshq.agent.link.LinkFailure;
import dev.gitopshq.agent.v1.RotateToken;
import dev.gitopshq.agent.v1.TokenRotated;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's identity upkeep: what an operator sees after a rotation or a failing store. */
class TokenRotationTest {

  private static final String CLUSTER = "7d0c4a64-3f0e-4c39-9f3a-2f5b7f0b9a11";
  private static final String OLD = "ghqa_" + "a".repeat(64);
  private static final String NEW = "ghqa_" + "b".repeat(64);
  private static final Instant NOW = Instant.parse("2026-11-24T10:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  @TempDir Path dir;

  private FileIdentityStore storeWithOldToken() {
    FileIdentityStore store = new FileIdentityStore(dir.resolve("agent.json"));
    store.save(new AgentIdentity(CLUSTER, OLD, "hub:443", NOW.minusSeconds(3600)));
    return store;
  }

  private static RotateToken rotation() {
    return RotateToken.newBuilder().setRotationId("rot-1").setAgentToken(NEW).build();
  }

  @Test
  void aRotationIsPersistedBeforeItIsAcknowledgedAndTheLinkUsesTheNewToken() {
    FileIdentityStore store = storeWithOldToken();
    List<AgentIdentity> told = new ArrayList<>();
    TokenRotation rotation =
        new TokenRotation(new IdentityKeeper(store, Duration.ZERO), CLOCK, told::add);

    TokenRotated answer = rotation.handle(rotation());

    assertThat(answer.getRotationId()).isEqualTo("rot-1");
    assertThat(answer.getPersisted()).isTrue();
    AgentIdentity saved = store.load().orElseThrow();
    assertThat(saved.agentToken()).isEqualTo(NEW);
    assertThat(saved.clusterId()).isEqualTo(CLUSTER);
    assertThat(saved.hubAddress()).isEqualTo("hub:443");
    assertThat(saved.registeredAt()).isEqualTo(NOW);
    assertThat(told).containsExactly(saved);
  }

  @Test
  void aStoreThatCannotSaveIsRetriedThenRefusedWithoutTheToken() {
    AtomicInteger saves = new AtomicInteger();
    IdentityStore failing =
        new FailingStore(
            Optional.of(new AgentIdentity(CLUSTER, OLD, "hub:443", NOW)),
            saves,
            "secrets \"gitopshq-agent-identity\" is forbidden");
    List<AgentIdentity> told = new ArrayList<>();
    TokenRotation rotation =
        new TokenRotation(new IdentityKeeper(failing, Duration.ZERO), CLOCK, told::add);

    TokenRotated answer = rotation.handle(rotation());

    assertThat(saves).hasValue(IdentityKeeper.ATTEMPTS);
    assertThat(answer.getPersisted()).isFalse();
    assertThat(answer.getError())
        .contains("cannot save the rotated token to Secret test/identity")
        .contains("forbidden")
        .doesNotContain(NEW)
        .doesNotContain(OLD);
    assertThat(told).isEmpty();
  }

  @Test
  void aRegistrationThatCannotBeSavedSaysTheJoinTokenIsConsumed() {
    AtomicInteger saves = new AtomicInteger();
    IdentityKeeper keeper =
        new IdentityKeeper(new FailingStore(Optional.empty(), saves, "disk full"), Duration.ZERO);

    assertThatThrownBy(() -> keeper.saveRegistered(new AgentIdentity(CLUSTER, NEW, "hub:443", NOW)))
        .isInstanceOfSatisfying(
            LinkFailure.class, f -> assertThat(f.exitCode()).isEqualTo(ExitCodes.IDENTITY_STORE))
        .hasMessageContaining("REGISTRATION LOST")
        .hasMessageContaining("/api/v2/clusters/" + CLUSTER + "/join-token")
        .hasMessageContaining("disk full")
        .hasMessageNotContaining(NEW);
    assertThat(saves).hasValue(IdentityKeeper.ATTEMPTS);
  }

  @Test
  void aStoreThatRecoversWithinTheAttemptsLoadsTheIdentity() throws Exception {
    AgentIdentity stored = new AgentIdentity(CLUSTER, OLD, "hub:443", NOW);
    AtomicInteger loads = new AtomicInteger();
    IdentityStore flaky =
        new FailingStore(Optional.of(stored), new AtomicInteger(), "unused") {
          @Override
          public Optional<AgentIdentity> load() {
            if (loads.incrementAndGet() < 3) {
              throw new IdentityStoreException("connection refused");
            }
            return super.load();
          }
        };

    assertThat(new IdentityKeeper(flaky, Duration.ZERO).load()).contains(stored);
    assertThat(loads).hasValue(3);
  }

  /** A Secret store whose writes always fail, as with RBAC that forbids updating the Secret. */
  private static class FailingStore implements IdentityStore {
    private final Optional<AgentIdentity> stored;
    private final AtomicInteger saves;
    private final String problem;

    FailingStore(Optional<AgentIdentity> stored, AtomicInteger saves, String problem) {
      this.stored = stored;
      this.saves = saves;
      this.problem = problem;
    }

    @Override
    public Optional<AgentIdentity> load() {
      return stored;
    }

    @Override
    public void save(AgentIdentity identity) {
      saves.incrementAndGet();
      throw new IdentityStoreException(problem);
    }

    @Override
    public void clear() {}

    @Override
    public String location() {
      return "Secret test/identity";
    }
  }
}
