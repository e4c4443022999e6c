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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs commands from the hub on one worker thread, so two commands never race on one object.
 *
 * <p>Each command id runs at most once: a repeat (the hub re-sends after a reconnect or its own
 * restart) is answered with the first result from memory, and across agent restarts the command
 * stamp on the object makes the re-run a no-op. A command whose deadline has passed is not run. A
 * type whose capability this agent was not given is refused, and so is a type command_types.proto
 * does not declare.
 */
public final class CommandRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CommandRunner.class);
  private static final int REMEMBERED = 10_000;

  private final Set<Capability> capabilities;
  private final KubeCommands kube;
  private final Clock clock;
  private final Consumer<CommandResult> reply;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "gitopshq-commands");
            t.setDaemon(true);
            return t;
          });
  private final AtomicInteger executions = new AtomicInteger();
  private final Map<String, CommandResult> done =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, CommandResult> eldest) {
              return size() > REMEMBERED;
            }
          });

  /** Re-applies a drift finding's desired object (resolve-drift without Argo CD). */
  @FunctionalInterface
  public interface DriftApplier {
    KubeCommands.Outcome apply(String manifest, String namespace, String fieldManager);
  }

  private final DriftApplier drift;

  public CommandRunner(
      Set<Capability> capabilities, KubeCommands kube, Clock clock, Consumer<CommandResult> reply) {
    this(
        capabilities,
        kube,
        (m, ns, fm) -> new KubeCommands.Outcome(false, "", "drift resolution is not available"),
        clock,
        reply);
  }

  public CommandRunner(
      Set<Capability> capabilities,
      KubeCommands kube,
      DriftApplier drift,
      Clock clock,
      Consumer<CommandResult> reply) {
    this.capabilities = Set.copyOf(capabilities);
    this.kube = kube;
    this.drift = drift;
    this.clock = clock;
    this.reply = reply;
  }

  /** Queues a command; its result goes to the reply consumer. */
  public void submit(ExecuteCommand command) {
    worker.execute(() -> reply.accept(run(command)));
  }

  /** How many commands actually reached the cluster (repeats and refusals excluded). */
  public int executions() {
    return executions.get();
  }

  CommandResult run(ExecuteCommand c) {
    CommandResult earlier = done.get(c.getCommandId());
    if (earlier != null) {
      log.info("command {} was already run; repeating its result", c.getCommandId());
      return earlier;
    }
    // A type command_types.proto does not declare is refused here, so nothing below can mistake
    // it for another type.
    CommandType type = CommandTypes.type(c.getType()).orElse(null);
    Capability needed =
        CommandTypes.capabilityFor(c.getType(), c.getParamsMap())
            .flatMap(Capability::fromSeedName)
            .orElse(null);
    if (type == null || needed == null) {
      return result(
          c, CommandResult.Outcome.REFUSED, "", "unknown command type '" + c.getType() + "'");
    }
    if (!capabilities.contains(needed)) {
      return result(
          c,
          CommandResult.Outcome.REFUSED,
          "",
          "this agent does not have the " + needed.seedName() + " capability");
    }
    Instant now = clock.instant();
    if (c.hasDeadline()
        && now.isAfter(
            Instant.ofEpochSecond(c.getDeadline().getSeconds(), c.getDeadline().getNanos()))) {
      return remember(
          c,
          result(
              c,
              CommandResult.Outcome.EXPIRED,
              "",
              "the command's deadline had passed; it was not run"));
    }
    log.info(
        "running command {}: {} {} {}/{}{} requested by {}",
        c.getCommandId(),
        c.getType(),
        c.getTarget().getKind(),
        c.getTarget().getNamespace(),
        c.getTarget().getName(),
        c.getBreakGlass() ? " (break-glass)" : "",
        c.getRequestedBy());
    KubeCommands.Outcome o;
    try {
      o = execute(type, c);
    } catch (RuntimeException e) {
      o = new KubeCommands.Outcome(false, "", "unexpected error: " + e.getMessage());
    }
    executions.incrementAndGet();
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
    return remember(c, r);
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

  private CommandResult remember(ExecuteCommand c, CommandResult r) {
    done.put(c.getCommandId(), r);
    return r;
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

  @Override
  public void close() {
    worker.shutdown();
    try {
      worker.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
