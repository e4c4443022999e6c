package dev.gitopshq.workflows.generation;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.WorkflowMetrics;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * See {@link DeliveryGenerationWorkflow}: plan, render every batch in parallel, commit. A unit that
 * cannot be rendered (a template error, values the chart's schema refuses) fails the whole
 * generation and nothing is committed: main keeps the last complete delivery.
 */
public class DeliveryGenerationWorkflowImpl implements DeliveryGenerationWorkflow {
  /** The activity failure type a render raises for input that will never render. */
  public static final String RENDER_FAILED = "RenderFailed";

  /** The failure type a plan raises for a configuration that cannot be planned. */
  public static final String PLAN_FAILED = "PlanFailed";

  static final Duration RENDER_ATTEMPT = Duration.ofMinutes(10);

  private final GenerationActivities store =
      Workflow.newActivityStub(
          GenerationActivities.class,
          ActivityOptions.newBuilder(StoreActivities.options())
              // Planning reads the whole project; committing writes every tree.
              .setStartToCloseTimeout(Duration.ofMinutes(5))
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(1))
                      .setBackoffCoefficient(2.0)
                      .setMaximumInterval(Duration.ofMinutes(1))
                      .setDoNotRetry(PLAN_FAILED)
                      .build())
              .build());

  private final GenerationActivities renderer =
      Workflow.newActivityStub(
          GenerationActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(RENDER_ATTEMPT)
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(1))
                      .setBackoffCoefficient(2.0)
                      .setMaximumInterval(Duration.ofMinutes(1))
                      .setMaximumAttempts(5)
                      .setDoNotRetry(RENDER_FAILED)
                      .build())
              .build());

  @Override
  public GenerationResult run(GenerationRequest request) {
    GenerationResult result = generate(request);
    WorkflowMetrics.generationFinished(result.status(), result.units(), result.reused());
    return result;
  }

  private GenerationResult generate(GenerationRequest request) {
    GenerationPlan plan;
    try {
      plan = store.plan(request);
    } catch (ActivityFailure e) {
      // A configuration that cannot be planned (the plan step recorded why on the generation).
      return new GenerationResult(
          null, GenerationResult.FAILED, null, 0, 0, StoreActivities.reason(e), 0);
    }
    if (plan.generationId() == null) {
      return new GenerationResult(
          null,
          GenerationResult.SUPERSEDED,
          null,
          0,
          0,
          "revision " + request.revision() + " was superseded by a newer generated revision",
          0);
    }
    List<Promise<Integer>> batches = new ArrayList<>();
    for (int b = 0; b < plan.batches(); b++) {
      batches.add(Async.function(renderer::render, request.orgId(), plan.generationId(), b));
    }
    String failure = null;
    for (Promise<Integer> p : batches) {
      try {
        p.get();
      } catch (ActivityFailure e) {
        if (failure == null) {
          failure = StoreActivities.reason(e);
        }
      }
    }
    if (failure != null) {
      return store.fail(request.orgId(), plan.generationId(), failure);
    }
    return store.commit(request.orgId(), plan.generationId());
  }
}
