package dev.gitopshq.agent.commands;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.kube.KubeCommands;
import dev.gitopshq.agent.metrics.AgentMetrics;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.CommandType;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.agent.v1.ExecuteCommand;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one command from the hub on the cluster and says how it ended: picks the action for the
 * command's type, runs it through {@link KubeCommands}, and turns the outcome into a {@link
 * CommandResult}. Whether a command runs at all (at most once per command id, not after its
 * deadline, only with its type's capability, one at a time) is the agent's job runner's concern;
 * {@link #needs}, {@link #refused} and {@link #expired} give it this kind's rules and answers.
 *
 * <p>Across agent restarts the command stamp on the object makes a re-run a no-op. A type
 * command_types.proto does not declare is refused, never run as another type.
 */
public final class CommandRunner {
  private static final Logger log = LoggerFactory.getLogger(CommandRunner.class);

  private final KubeCommands kube;
  private final Clock clock;

  /** Re-applies a drift finding's desired object (resolve-drift without Argo CD). */
  @FunctionalInterface
  public interface DriftApplier {
    KubeCommands.Outcome apply(String manifest, String namespace, String fieldManager);
  }

  private final DriftApplier drift;

  public CommandRunner(KubeCommands kube, Clock clock) {
    this(
        kube,
        (m, ns, fm) -> new KubeCommands.Outcome(false, "", "drift resolution is not available"),
        clock);
  }

  public CommandRunner(KubeCommands kube, DriftApplier drift, Clock clock) {
    this.kube = kube;
    this.drift = drift;
    this.clock = clock;
  }

  /**
   * The capability the command's type needs (empty when the type is unknown: the command is
   * refused).
   */
  public static Set<Capability> needs(ExecuteCommand c) {
    return CommandTypes.capabilityFor(c.getType(), c.getParamsMap())
        .flatMap(Capability::fromSeedName)
        .map(Set::of)
        .orElse(Set.of());
  }

  /** The answer to a command this agent may not run: an unknown type, or a missing capability. */
  public CommandResult refused(ExecuteCommand c, Set<Capability> needed) {
    return result(
        c,
        CommandResult.Outcome.REFUSED,
        "",
        needed.isEmpty()
            ? "unknown command type '" + c.getType() + "'"
            : "this agent does not have the "
                + needed.iterator().next().seedName()
                + " capability");
  }

  /** The answer to a command whose deadline had passed before it could start. */
  public CommandResult expired(ExecuteCommand c) {
    return result(
        c, CommandResult.Outcome.EXPIRED, "", "the command's deadline had passed; it was not run");
  }

  /** Runs the command on the cluster; never throws. */
  public CommandResult run(ExecuteCommand c) {
    log.info(
        "running command {}: {} {} {}/{}{} requested by {}",
        c.getCommandId(),
        c.getType(),
        c.getTarget().getKind(),
        c.getTarget().getNamespace(),
        c.getTarget().getName(),
        c.getBreakGlass() ? " (break-glass)" : "",
        c.getRequestedBy());
    // A type command_types.proto does not declare is refused here, so nothing below can mistake
    // it for another type.
    CommandType type = CommandTypes.type(c.getType()).orElse(null);
    if (type == null) {
      return refused(c, Set.of());
    }
    KubeCommands.Outcome o;
    try {
      o = execute(type, c);
    } catch (RuntimeException e) {
      o = new KubeCommands.Outcome(false, "", "unexpected error: " + e.getMessage());
    }
    AgentMetrics.commandRun(c.getType(), o.success());
    CommandResult r =
        o.success()
            ? result(c, CommandResult.Outcome.SUCCEEDED, o.output(), "")
            : result(c, CommandResult.Outcome.FAILED, "", o.error());
    log.info(
        "command {} {}: {}",
        c.getCommandId(),
        o.success() ? "succeeded" : "failed",
        o.success() ? o.output() : o.error());
    return r;
  }

  /**
   * One handler per type of command_types.proto. The switch has no default: a type added to the
   * proto does not compile here until it has a handler.
   */
  private KubeCommands.Outcome execute(CommandType type, ExecuteCommand c) {
    String ns = c.getTarget().getNamespace();
    String name = c.getTarget().getName();
    Map<String, String> p = c.getParamsMap();
    return switch (type) {
      case COMMAND_TYPE_SCALE -> {
        int replicas;
        try {
          replicas = Integer.parseInt(p.getOrDefault("replicas", ""));
        } catch (NumberFormatException e) {
          yield new KubeCommands.Outcome(false, "", "params.replicas is not a number");
        }
        yield kube.scale(ns, name, c.getCommandId(), replicas);
      }
      case COMMAND_TYPE_RESTART -> kube.restart(ns, name, c.getCommandId());
      case COMMAND_TYPE_SYNC ->
          kube.sync(ns, name, c.getCommandId(), c.getRequestedBy(), p.get("revision"));
      case COMMAND_TYPE_REFRESH -> kube.refresh(ns, name, c.getCommandId());
      case COMMAND_TYPE_RESOLVE_DRIFT -> resolveDrift(c);
      case COMMAND_TYPE_ROLLBACK ->
          kube.rollback(
              ns,
              name,
              c.getCommandId(),
              c.getRequestedBy(),
              p.get("historyId"),
              p.get("revision"));
      case COMMAND_TYPE_UNSPECIFIED, UNRECOGNIZED ->
          throw new IllegalArgumentException("not a command type: " + type);
    };
  }

  /**
   * resolve-drift: asks Argo CD to sync the Application that manages the object, or re-applies the
   * desired object with server-side apply as the finding's field manager.
   */
  private KubeCommands.Outcome resolveDrift(ExecuteCommand c) {
    Map<String, String> p = c.getParamsMap();
    String application = p.getOrDefault(CommandTypes.PARAM_APPLICATION, "");
    if (!application.isEmpty()) {
      int slash = application.indexOf('/');
      if (slash <= 0) {
        return new KubeCommands.Outcome(false, "", "params.application is not namespace/name");
      }
      KubeCommands.Outcome o =
          kube.sync(
              application.substring(0, slash),
              application.substring(slash + 1),
              c.getCommandId(),
              c.getRequestedBy(),
              null);
      return o.success()
          ? new KubeCommands.Outcome(
              true, "asked Argo CD to sync " + application + ": " + o.output(), "")
          : o;
    }
    if (c.getDesiredManifest().isEmpty()) {
      return new KubeCommands.Outcome(false, "", "the command carries no desired manifest");
    }
    return drift.apply(
        c.getDesiredManifest(),
        c.getTarget().getNamespace(),
        p.getOrDefault(CommandTypes.PARAM_FIELD_MANAGER, "gitopshq-agent"));
  }

  private CommandResult result(
      ExecuteCommand c, CommandResult.Outcome outcome, String output, String error) {
    Instant now = clock.instant();
    return CommandResult.newBuilder()
        .setCommandId(c.getCommandId())
        .setOutcome(outcome)
        .setOutput(output == null ? "" : output)
        .setError(error == null ? "" : error)
        .setFinishedAt(
            Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
        .build();
  }
}
