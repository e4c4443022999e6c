package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "audit",
    description = "The audit log: list, verify its hash chain, replay recorded workflow histories.")
final class AuditCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Seq", "seq"),
          Output.Column.of("At", "at"),
          Output.Column.of("Actor", "/actor/name"),
          Output.Column.of("Action", "action"),
          new Output.Column(
              "Target",
              n ->
                  n.path("target").isObject()
                      ? Output.text(n.at("/target/type")) + "/" + Output.text(n.at("/target/id"))
                      : ""));

  @Command(name = "list", aliases = "ls", description = "Entries, newest first.")
  void list(
      @Option(names = "--actor", description = "The actor's id or name.") String actor,
      @Option(names = "--action", description = "e.g. cluster.created") String action,
      @Option(names = "--target", description = "A resource id.") String target,
      @Option(names = "--from", description = "RFC 3339") String from,
      @Option(names = "--to", description = "RFC 3339") String to,
      @Option(names = "--limit", description = "1-500 (default 100)") Integer limit,
      @Option(names = "--cursor") String cursor) {
    Map<String, List<String>> q = new LinkedHashMap<>();
    CommandsCommand.query(q, "actor", actor);
    CommandsCommand.query(q, "action", action);
    CommandsCommand.query(q, "target", target);
    CommandsCommand.query(q, "from", from);
    CommandsCommand.query(q, "to", to);
    CommandsCommand.query(q, "limit", limit);
    CommandsCommand.query(q, "cursor", cursor);
    JsonNode list = client().call(Endpoint.AUDIT_LIST, q, null, Map.of());
    output().print(list, items(list), LIST);
    if (output().isTable() && list.path("nextCursor").isTextual()) {
      root().err.println("more: --cursor " + list.path("nextCursor").asText());
      root().err.flush();
    }
  }

  @Command(
      name = "verify",
      description = {
        "Ask the hub to recompute the organization's hash chain.",
        "Exit code 0 when it is intact, 6 when an entry does not match."
      })
  int verify() {
    JsonNode r = client().call(Endpoint.AUDIT_VERIFY);
    Output out = output();
    boolean valid = r.path("valid").asBoolean(false);
    if (!out.isTable()) {
      out.raw(r);
    } else if (valid) {
      out.line("Audit chain intact: " + r.path("entriesChecked").asLong() + " entries checked.");
    } else {
      out.line(
          "Audit chain BROKEN at entry "
              + r.path("firstBrokenSeq").asText()
              + " ("
              + r.path("entriesChecked").asLong()
              + " entries checked): "
              + Output.oneLine(r.path("reason").asText()));
    }
    return valid ? ExitCode.OK : ExitCode.FAILED;
  }

  @Command(
      name = "history",
      description = {
        "Export a workflow's Temporal history (JSON) for 'audit replay' or 'evidence verify"
            + " --history', to FILE or standard output."
      })
  void history(
      @Parameters(paramLabel = "WORKFLOW_ID") String workflowId,
      @Option(
              names = {"-f", "--file"},
              description = "Write to this file.")
          Path file) {
    EvidenceCommand.write(this, client().call(Endpoint.WORKFLOW_HISTORY, workflowId), file);
  }

  @Command(
      name = "replay",
      description = {
        "Replay recorded workflow histories (Temporal JSON, files or directories of *.json)"
            + " against this build's workflow code, offline, in this process.",
        "Prints per history 'deterministic' or 'diverged at event N' with the reason.",
        "Exit code 0 only when every history is deterministic; 6 when one diverged; 1 when one"
            + " cannot be read."
      })
  int replay(@Parameters(paramLabel = "HISTORY", arity = "1..*") List<Path> paths) {
    List<Replayer.Result> results = Replayer.replay(Replayer.files(paths));
    Output out = output();
    if (out.isTable()) {
      results.forEach(r -> out.line(Replayer.describe(r)));
      long bad =
          results.stream().filter(r -> r.outcome() != Replayer.Outcome.deterministic).count();
      out.line(
          results.size()
              + " histories: "
              + (results.size() - bad)
              + " deterministic, "
              + bad
              + " not.");
    } else {
      ArrayNode arr = HubClient.JSON.createArrayNode();
      for (Replayer.Result r : results) {
        ObjectNode n = arr.addObject();
        n.put("file", r.file().toString());
        n.put("workflowType", r.workflowType());
        n.put("outcome", r.outcome().name());
        if (r.eventId() > 0) {
          n.put("eventId", r.eventId());
        }
        if (!r.reason().isEmpty()) {
          n.put("reason", r.reason());
        }
      }
      out.raw(arr);
    }
    if (results.stream().anyMatch(r -> r.outcome() == Replayer.Outcome.diverged)) {
      return ExitCode.FAILED;
    }
    if (results.stream().anyMatch(r -> r.outcome() == Replayer.Outcome.unreadable)) {
      return ExitCode.ERROR;
    }
    return ExitCode.OK;
  }
}
