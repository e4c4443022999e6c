package dev.gitopshq.agent;

import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.RotateToken;
import dev.gitopshq.agent.v1.TokenRotated;
import java.time.Clock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's half of token rotation: persist the hub's new token before acknowledging it, so that
 * an agent restarted at any moment finds a token the hub accepts. Without the {@code token.rotate}
 * capability the agent's job runner refuses ({@link #refused}), and the hub revokes the token it
 * offered.
 */
final class TokenRotation {

  private static final Logger log = LoggerFactory.getLogger(TokenRotation.class);

  private final IdentityKeeper identities;
  private final Clock clock;
  private final Consumer<AgentIdentity> rotated;

  /**
   * @param rotated told the saved identity, so that the next Connect uses the new token
   */
  TokenRotation(IdentityKeeper identities, Clock clock, Consumer<AgentIdentity> rotated) {
    this.identities = identities;
    this.clock = clock;
    this.rotated = rotated;
  }

  /** The answer without the {@code token.rotate} capability: the token is not persisted. */
  static TokenRotated refused(RotateToken rotation) {
    return TokenRotated.newBuilder()
        .setRotationId(rotation.getRotationId())
        .setPersisted(false)
        .setError("the token.rotate capability is off on this agent")
        .build();
  }

  /** Persists the rotated token and answers whether it did; may call the Kubernetes API. */
  TokenRotated handle(RotateToken rotation) {
    TokenRotated.Builder answer = TokenRotated.newBuilder().setRotationId(rotation.getRotationId());
    try {
      AgentIdentity next = identities.rotate(rotation.getAgentToken(), clock.instant());
      rotated.accept(next);
      log.info(
          "rotated the agent token (rotation {}) and persisted it to {}",
          Redactor.redact(rotation.getRotationId()),
          identities.location());
      return answer.setPersisted(true).build();
    } catch (RuntimeException e) {
      String error =
          "cannot save the rotated token to "
              + identities.location()
              + ": "
              + Redactor.redact(e.getMessage() == null ? e.toString() : e.getMessage());
      log.error(
          "could not persist the rotated token (rotation {}): {}",
          Redactor.redact(rotation.getRotationId()),
          error);
      return answer.setPersisted(false).setError(error).build();
    }
  }
}
