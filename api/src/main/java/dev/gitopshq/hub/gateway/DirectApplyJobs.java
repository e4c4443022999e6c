package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.DirectApplyRow;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.workflows.release.DirectOutcome;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Direct applies as jobs: {@code ApplyRelease} built when it is sent (the files read from the
 * deploy commit, the project's fence as its admins set it then), {@code ApplyResult} stored with
 * what it placed and read into the apply activity's {@link DirectOutcome}. An apply no agent took
 * before its deadline fails unapplied, also when no stream comes.
 */
final class DirectApplyJobs implements JobKind<DirectOutcome> {
  private static final Logger log = LoggerFactory.getLogger(DirectApplyJobs.class);

  private final DirectApplyMapper applies;
  private final DirectApplies direct;
  private final ProjectFenceMapper fences;
  private final Clock clock;

  DirectApplyJobs(
      DirectApplyMapper applies, DirectApplies direct, ProjectFenceMapper fences, Clock clock) {
    this.applies = applies;
    this.direct = direct;
    this.fences = fences;
    this.clock = clock;
  }

  @Override
  public String name() {
    return AgentJob.KIND_DIRECT_APPLY;
  }

  @Override
  public AgentMessage.PayloadCase answer() {
    return AgentMessage.PayloadCase.APPLY_RESULT;
  }

  @Override
  public String ref(AgentMessage answer) {
    return answer.getApplyResult().getApplyId();
  }

  @Override
  public Class<DirectOutcome> resultType() {
    return DirectOutcome.class;
  }

  @Override
  public boolean expiresUnsent() {
    return true;
  }

  @Override
  public HubMessage.Builder message(AgentJob job) {
    DirectApplyRow a = row(job);
    try {
      // The project's fence as its admins set it now, so a fence tightened after the release was
      // generated still holds at the cluster.
      ApplyRelease message =
          direct.message(
              a,
              direct.requester(a),
              fences
                  .find(a.orgId(), a.projectId())
                  .map(ProjectFenceRow::toProto)
                  .orElse(TenantFences.DEFAULT));
      return HubMessage.newBuilder().setApplyRelease(message);
    } catch (IllegalArgumentException e) {
      throw new Refused(e.getMessage());
    }
  }

  @Override
  public void sent(AgentJob job, HubMessage message, UUID clusterId) {
    applies.markSent(job.orgId(), job.ref(), clock.instant());
    ApplyRelease a = message.getApplyRelease();
    log.info(
        "direct apply {} ({} files of {}@{}) sent to cluster {}",
        job.ref(),
        a.getFilesCount(),
        a.getEnvironment(),
        a.getCommit(),
        clusterId);
  }

  @Override
  public DirectOutcome answered(AgentJob job, AgentMessage answer) {
    ApplyResult result = answer.getApplyResult();
    DirectApplyRow row = applies.find(job.orgId(), job.ref()).orElse(null);
    if (row == null) {
      return new DirectOutcome(false, "the direct apply is gone", result.getObjectsCount());
    }
    DirectOutcome outcome = direct.store(row, result);
    log.info(
        "cluster {} reported direct apply {}: {} ({} objects)",
        job.clusterId(),
        LogSafe.text(job.ref()),
        result.getOutcome(),
        result.getObjectsCount());
    return outcome;
  }

  @Override
  public DirectOutcome unanswered(AgentJob job, String reason) {
    return applies
        .find(job.orgId(), job.ref())
        .map(a -> direct.fail(a, reason))
        .orElseGet(() -> new DirectOutcome(false, reason, 0));
  }

  @Override
  public String expired(AgentJob job, boolean held) {
    if (held) {
      return "the deadline passed before the agent could take the apply; nothing was applied";
    }
    String cluster = applies.find(job.orgId(), job.ref()).map(DirectApplyRow::cluster).orElse("");
    return "the agent of cluster "
        + cluster
        + " did not take the apply before its deadline; nothing was applied";
  }

  private DirectApplyRow row(AgentJob job) {
    return applies
        .find(job.orgId(), job.ref())
        .orElseThrow(() -> new Refused("the direct apply is gone; nothing was applied"));
  }
}
