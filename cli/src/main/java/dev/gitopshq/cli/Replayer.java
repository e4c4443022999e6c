package dev.gitopshq.cli;

import dev.gitopshq.workflows.Workflows;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.ReplayResults;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Replays recorded workflow histories (Temporal's JSON export, e.g. {@code temporal workflow show
 * --output json}) against the workflow classes of this build, in this JVM: the same classes the
 * hub's worker registers ({@link Workflows#IMPLEMENTATIONS}). No Temporal server is involved, so an
 * auditor can check that the recorded history is what the code does without access to the hub.
 */
final class Replayer {
  private static final long MAX_FILE = 64L * 1024 * 1024;
  private static final Pattern EVENT = Pattern.compile("[Ee]vent (?:[Ii][Dd] )?(\\d+)");

  /** One history's outcome. {@code eventId} is 0 when the failure names no event. */
  record Result(
      Path file,
      String workflowType,
      String workflowId,
      Outcome outcome,
      long eventId,
      String reason) {}

  enum Outcome {
    deterministic,
    diverged,
    unreadable
  }

  private Replayer() {}

  /** The {@code .json} files named, and those directly inside the directories named, sorted. */
  static List<Path> files(List<Path> args) {
    List<Path> files = new ArrayList<>();
    for (Path a : args) {
      if (Files.isDirectory(a)) {
        try (Stream<Path> s = Files.list(a)) {
          s.filter(p -> p.getFileName().toString().endsWith(".json") && Files.isRegularFile(p))
              .sorted()
              .forEach(files::add);
        } catch (IOException e) {
          throw new CliException(ExitCode.USAGE, "cannot list " + a + ": " + e.getMessage());
        }
      } else if (Files.isRegularFile(a)) {
        files.add(a);
      } else {
        throw new CliException(ExitCode.USAGE, a + ": no such file or directory");
      }
    }
    if (files.isEmpty()) {
      throw new CliException(ExitCode.USAGE, "no history (.json) found in " + args);
    }
    return files;
  }

  static List<Result> replay(List<Path> files) {
    Map<String, Result> readable = new LinkedHashMap<>();
    List<WorkflowExecutionHistory> histories = new ArrayList<>();
    List<Result> results = new ArrayList<>();
    for (Path f : files) {
      String key = "history-" + histories.size() + ":" + f;
      try {
        if (Files.size(f) > MAX_FILE) {
          results.add(new Result(f, "", "", Outcome.unreadable, 0, "larger than 64 MiB"));
          continue;
        }
        WorkflowExecutionHistory h = WorkflowExecutionHistory.fromJson(Files.readString(f), key);
        String type =
            h.getEvents().isEmpty()
                ? ""
                : h.getEvents()
                    .get(0)
                    .getWorkflowExecutionStartedEventAttributes()
                    .getWorkflowType()
                    .getName();
        histories.add(h);
        Result ok = new Result(f, type, key, Outcome.deterministic, 0, "");
        readable.put(key, ok);
        results.add(ok);
      } catch (IOException | RuntimeException e) {
        results.add(
            new Result(f, "", "", Outcome.unreadable, 0, "not a workflow history: " + message(e)));
      }
    }
    if (!histories.isEmpty()) {
      Class<?>[] all = Workflows.implementations();
      ReplayResults rr;
      try {
        rr = WorkflowReplayer.replayWorkflowExecutions(histories, false, all);
      } catch (Exception e) {
        throw new CliException(ExitCode.ERROR, "the replayer failed: " + message(e));
      }
      for (ReplayResults.ReplayError err : rr.allErrors()) {
        Result before = readable.get(err.workflowId);
        if (before == null) {
          continue;
        }
        String full = message(err.exception);
        String reason = reason(full);
        Result diverged =
            new Result(
                before.file(),
                before.workflowType(),
                before.workflowId(),
                Outcome.diverged,
                eventId(full),
                reason);
        results.set(results.indexOf(before), diverged);
      }
    }
    return results;
  }

  /**
   * What a person needs from a replay failure: Temporal's non-determinism message without the query
   * wrapper, the error code tags and the stack trace it carries inline.
   */
  static String reason(String full) {
    String s = full;
    int nd = s.lastIndexOf("NonDeterministicException: ");
    if (nd >= 0) {
      s = s.substring(nd + "NonDeterministicException: ".length());
    }
    for (String cut : List.of(" {WorkflowTaskStartedEventId", "  at ", "\tat ")) {
      int i = s.indexOf(cut);
      if (i > 0) {
        s = s.substring(0, i);
      }
    }
    s =
        s.replaceFirst(
            "^\\[TMPRL\\d+] Failure handling event \\d+ of type '[A-Z_]+' during replay\\. ", "");
    return s.replaceAll("\\[TMPRL\\d+] ", "").strip();
  }

  /** The event the failure names ("Failure handling event 12 of type ..."), or 0. */
  static long eventId(String reason) {
    Matcher m = EVENT.matcher(reason);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /** The chain of messages of a failure, innermost last, on one line. */
  static String message(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable t = e; t != null && parts.size() < 6; t = t.getCause()) {
      String m = t.getMessage();
      if (m != null && !m.isBlank() && parts.stream().noneMatch(p -> p.contains(m))) {
        parts.add(m.strip());
      }
      if (t.getCause() == t) {
        break;
      }
    }
    if (parts.isEmpty()) {
      parts.add(e.getClass().getSimpleName());
    }
    return Output.oneLine(String.join(": ", parts));
  }

  static String describe(Result r) {
    return switch (r.outcome()) {
      case deterministic -> r.file() + ": deterministic (" + r.workflowType() + ")";
      case diverged ->
          r.file()
              + ": diverged"
              + (r.eventId() > 0 ? " at event " + r.eventId() : "")
              + " ("
              + r.workflowType()
              + "): "
              + r.reason();
      case unreadable -> r.file() + ": unreadable: " + r.reason();
    };
  }

  static List<Class<?>> classes() {
    return Arrays.asList(Workflows.implementations());
  }
}
