package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.generation.GenerationActivitiesImpl;
import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.RenderWorkers;
import dev.gitopshq.activities.render.Renderer;
import java.nio.file.Files;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires delivery generation: the renderer and the activities the worker runs. */
@Configuration
@EnableScheduling
public class GenerationConfig {
  private static final Logger log = LoggerFactory.getLogger(GenerationConfig.class);

  /**
   * Helm charts render in the render worker processes (RenderWorkers, configured from the
   * environment): a bad setting stops the hub at startup, a missing worker executable is said
   * loudly (every Helm render and chart upload would fail).
   */
  @Bean
  Renderer renderer() {
    RenderWorkers.Config workers = RenderWorkers.shared().config();
    if (workers.binary() == null || !Files.isExecutable(workers.binary())) {
      log.error(
          "no render worker executable{}: Helm renders and chart uploads will fail; set"
              + " GITOPSHQ_RENDER_WORKER_BIN (tools/build-tools.sh render-worker builds it)",
          workers.binary() == null ? "" : " at " + workers.binary());
    } else {
      log.info(
          "Helm renders in up to {} render workers ({}; {} s, {} MiB, {} renders each)",
          workers.workers(),
          workers.binary(),
          workers.timeout().toSeconds(),
          workers.memoryBytes() >> 20,
          workers.rendersPerWorker());
    }
    return new Renderer();
  }

  @Bean
  GenerationActivitiesImpl generationActivities(
      GenerationMapper generations,
      ChartMapper charts,
      ProjectSnapshots snapshots,
      Renderer renderer,
      ProjectRepos repos,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      @Value("${gitopshq.delivery.batch-size:25}") int batchSize) {
    return new GenerationActivitiesImpl(
        generations,
        charts,
        snapshots::load,
        renderer,
        repos,
        audit,
        new TransactionTemplate(transactions),
        clock,
        batchSize);
  }
}
