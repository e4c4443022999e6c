package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.hub.delivery.GenerationLauncher;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Starts the generation of every configuration revision whose workflow never started: a change is
 * committed first and its generation started after, so a Temporal outage in between would otherwise
 * leave the revision ungenerated. Starting is idempotent (the workflow id is the revision), so
 * replicas sweeping at once do no harm.
 */
@Component
public class GenerationSweeper {
  private static final Logger log = LoggerFactory.getLogger(GenerationSweeper.class);

  /** Leaves the request that made the change time to start the workflow itself. */
  static final Duration GRACE = Duration.ofSeconds(10);

  private final GenerationMapper generations;
  private final GenerationLauncher launcher;
  private final Clock clock;

  public GenerationSweeper(GenerationMapper generations, GenerationLauncher launcher, Clock clock) {
    this.generations = generations;
    this.launcher = launcher;
    this.clock = clock;
  }

  @Scheduled(
      initialDelayString = "${gitopshq.delivery.sweep-interval:30s}",
      fixedDelayString = "${gitopshq.delivery.sweep-interval:30s}")
  public void sweep() {
    try {
      for (GenerationMapper.Pending p :
          generations.ungenerated(clock.instant().minus(GRACE), 100)) {
        if (launcher.launch(p.orgId(), p.projectId(), p.revision(), "catch-up", "GitOpsHQ")) {
          log.info(
              "started the missed generation of project {} revision {}",
              p.projectId(),
              p.revision());
        }
      }
    } catch (RuntimeException e) {
      log.warn("delivery generation sweep failed: {}", e.toString());
    }
  }
}
