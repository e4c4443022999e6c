package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.generation.GenerationActivitiesImpl;
import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.Renderer;
import java.time.Clock;
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

  /** Helm charts render in the render worker processes (RenderWorkers, from the environment). */
  @Bean
  Renderer renderer() {
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
