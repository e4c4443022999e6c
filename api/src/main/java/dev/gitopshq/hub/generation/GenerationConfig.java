package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.generation.GenerationActivitiesImpl;
import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.hub.config.GitProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
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

  @Bean
  Renderer renderer(GitProperties git) {
    try {
      return new Renderer(Files.createDirectories(git.renderDir()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the render directory " + git.renderDir(), e);
    }
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
