package dev.gitopshq.hub.temporal;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import dev.gitopshq.hub.config.ReplicaIdentity;
import dev.gitopshq.hub.config.TemporalProperties;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.Workflows;
import dev.gitopshq.workflows.adapter.AdapterWiringActivities;
import dev.gitopshq.workflows.agentwatch.AgentWatchActivities;
import dev.gitopshq.workflows.approval.ApprovalActivities;
import dev.gitopshq.workflows.command.AgentDispatchActivities;
import dev.gitopshq.workflows.command.CommandActivities;
import dev.gitopshq.workflows.credential.CredentialJobActivities;
import dev.gitopshq.workflows.credential.CredentialSendActivities;
import dev.gitopshq.workflows.credential.CredentialSyncActivities;
import dev.gitopshq.workflows.generation.GenerationActivities;
import dev.gitopshq.workflows.registration.RegistrationActivities;
import dev.gitopshq.workflows.release.DirectApplyActivities;
import dev.gitopshq.workflows.release.ReleaseActivities;
import dev.gitopshq.workflows.release.RuntimeActivities;
import dev.gitopshq.workflows.rotation.RotationActivities;
import dev.gitopshq.workflows.rotation.RotationDeliveryActivities;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Connects to Temporal (the dev server for {@code make run}, a cluster in production, or the
 * in-process test server when a test supplies the {@link WorkflowServiceStubs}) and runs this
 * replica's worker. Every replica polls the same task queue, so any of them can run any workflow.
 */
@Configuration
public class TemporalConfig {

  @Bean(destroyMethod = "shutdown")
  @ConditionalOnMissingBean
  WorkflowServiceStubs workflowServiceStubs(TemporalProperties props, MeterRegistry meters) {
    return WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(props.address())
            .setMetricsScope(metricsScope(meters, METRICS_REPORT_EVERY))
            .build());
  }

  /** How often the SDK's metrics (and the workflows' domain metrics) reach Micrometer. */
  static final Duration METRICS_REPORT_EVERY = Duration.ofSeconds(10);

  /**
   * Temporal's SDK metrics and the workflows' own ({@link dev.gitopshq.workflows.WorkflowMetrics})
   * reported to Micrometer, so {@code /actuator/prometheus} serves them.
   */
  public static Scope metricsScope(MeterRegistry meters, Duration every) {
    return new RootScopeBuilder()
        .reporter(new MicrometerClientStatsReporter(meters))
        .reportEvery(com.uber.m3.util.Duration.ofMillis(every.toMillis()));
  }

  @Bean
  WorkflowClient workflowClient(WorkflowServiceStubs stubs, TemporalProperties props) {
    return WorkflowClient.newInstance(
        stubs, WorkflowClientOptions.newBuilder().setNamespace(props.namespace()).build());
  }

  /** The schedules of the namespace (token rotation); a test may supply its own. */
  @Bean
  @ConditionalOnMissingBean
  ScheduleClient scheduleClient(WorkflowServiceStubs stubs, TemporalProperties props) {
    return ScheduleClient.newInstance(
        stubs, ScheduleClientOptions.newBuilder().setNamespace(props.namespace()).build());
  }

  @Bean
  WorkerFactory workerFactory(
      WorkflowClient client,
      RegistrationActivities registration,
      CommandActivities commands,
      ApprovalActivities approvals,
      AgentDispatchActivities dispatch,
      AgentWatchActivities watch,
      RotationActivities rotation,
      RotationDeliveryActivities delivery,
      GenerationActivities generation,
      ReleaseActivities releases,
      ReplicaIdentity replica,
      DirectApplyActivities directApplies,
      RuntimeActivities runtime,
      AdapterWiringActivities adapterWiring,
      CredentialSyncActivities credentialSync,
      CredentialSendActivities credentialSend,
      CredentialJobActivities credentialJobs,
      TemporalProperties props) {
    WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder();
    if (props.workflowCacheSize() != null) {
      options.setWorkflowCacheSize(props.workflowCacheSize());
    }
    WorkerFactory factory = WorkerFactory.newInstance(client, options.build());
    Worker worker = factory.newWorker(TaskQueues.HUB);
    worker.registerWorkflowImplementationTypes(Workflows.implementations());
    worker.registerActivitiesImplementations(
        registration,
        commands,
        approvals,
        dispatch,
        watch,
        rotation,
        generation,
        releases,
        directApplies,
        runtime,
        adapterWiring,
        credentialSync,
        credentialJobs);
    // This replica's own queue: work that must run where an agent's stream is held.
    factory
        .newWorker(TaskQueues.replica(replica.id()))
        .registerActivitiesImplementations(delivery, credentialSend);
    return factory;
  }

  /** Starts polling once the application is up and stops before the data source goes away. */
  @Bean
  SmartLifecycle temporalWorkers(WorkerFactory factory) {
    return new SmartLifecycle() {
      private volatile boolean running;

      @Override
      public void start() {
        factory.start();
        running = true;
      }

      @Override
      public void stop() {
        factory.shutdown();
        factory.awaitTermination(10, TimeUnit.SECONDS);
        running = false;
      }

      @Override
      public boolean isRunning() {
        return running;
      }

      @Override
      public int getPhase() {
        // After the gateway (which signals workflows) is stopped, before the database is.
        return Integer.MAX_VALUE - 2048;
      }
    };
  }
}
