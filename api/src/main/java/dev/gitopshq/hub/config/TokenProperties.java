package dev.gitopshq.hub.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Agent token rotation.
 *
 * @param rotationGrace how long the old token keeps working after the new one is active
 *     (GITOPSHQ_TOKEN_ROTATION_GRACE, 15 min)
 * @param rotationAckTimeout how long the agent has to persist and acknowledge a new token
 *     (GITOPSHQ_TOKEN_ROTATION_ACK_TIMEOUT, 2 min)
 * @param rotationInterval how often agents with token.rotate are rotated automatically
 *     (GITOPSHQ_TOKEN_ROTATION_INTERVAL, 30 days)
 */
@ConfigurationProperties("gitopshq.tokens")
public record TokenProperties(
    Duration rotationGrace, Duration rotationAckTimeout, Duration rotationInterval) {}
