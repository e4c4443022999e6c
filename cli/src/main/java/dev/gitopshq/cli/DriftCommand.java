package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "drift",
    description = {
      "A cluster's drift findings: list, inspect, check now, resolve (governed).",
      "An object a check could not compare is 'not compared' (its sync status is unknown), never"
          + " in sync."
    })
final class DriftCommand extends Base {
  private static final Output.Column OBJECT =
      new Output.Column(
          "Object",
          n ->
              Output.text(n.at("/object/kind"))
                  + "/"
                  + Output.text(n.at("/object/namespace"))
                  + "/"
                  + Output.text(n.at("/object/name")));

  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Severity", "severity"),
          OBJECT,
          Output.Column.of("Differences", "differences"),
          new Output.Column(
              "State",
              n ->
                  !n.path("open").asBoolean()
                      ? "resolved"
                      : n.path("notCompared").isTextual() ? "open (not compared)" : "open"),
          Output.Column.of("First detected", "firstDetectedAt"),
          Output.Column.of("Resolved", "resolvedAt"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Object", "object"),
          Output.Column.of("Severity", "severity"),
          Output.Column.of("State", "state"),
          Output.Column.of("Open", "open"),
          Output.Column.of("Source", "source"),
          Output.Column.of("Field manager", "fieldManager"),
          Output.Column.of("Argo CD app", "argoApplication"),
          Output.Column.of("Method", "method"),
          Output.Column.of("First detected", "firstDetectedAt"),
          Output.Column.of("Last seen", "lastSeenAt"),
          Output.Column.of("Resolved", "resolvedAt"),
          Output.Column.of("Duration (s)", "durationSeconds"),
          Output.Column.of("Not compared", "notCompared"));

  /** The objects a check did not compare: their sync status is unknown. */
  static final List<Output.Column> NOT_COMPARED =
      List.of(
          OBJECT,
          new Output.Column(
              "Source",
              n -> Output.text(n.at("/source/branch")) + ":" + Output.text(n.at("/source/path"))),
          Output.Column.of("Reason", "reason"));

  static final List<Output.Column> DIFFERENCES =
      List.of(
          Output.Column.of("Path", "path"),
          Output.Column.of("Desired", "desired"),
          Output.Column.of("Live", "live"),
          Output.Column.of("Severity", "severity"));

  static final List<Output.Column> CHECK =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Objects", "objects"),
          Output.Column.of("Drifted", "drifted"),
          Output.Column.of("Opened", "opened"),
          Output.Column.of("Resolved", "resolved"),
          Output.Column.of("Not compared", "unknown"),
          Output.Column.of("Summary", "summary"),
          Output.Column.of("Error", "error"));

  @Command(name = "list", aliases = "ls", description = "A cluster's findings, newest first.")
  void list(
      @Parameters(paramLabel = "CLUSTER", description = "The cluster's name or id.") String cluster,
      @Option(names = "--severity", description = "functional or cosmetic") String severity,
      @Option(names = {"-n", "--namespace"}) String namespace,
      @Option(names = "--state", description = "open or resolved") String state,
      @Option(names = "--limit", description = "1-200 (default 50)") Integer limit,
      @Option(names = "--cursor", description = "The previous page's next cursor.") String cursor) {
    HubClient hub = client();
    Map<String, List<String>> q = new LinkedHashMap<>();
    CommandsCommand.query(q, "severity", severity);
    CommandsCommand.query(q, "namespace", namespace);
    CommandsCommand.query(q, "state", state);
    CommandsCommand.query(q, "limit", limit);
    CommandsCommand.query(q, "cursor", cursor);
    JsonNode list = hub.call(Endpoint.DRIFT_LIST, q, null, Map.of(), clusterId(hub, cluster));
    output().print(list, items(list), LIST);
    JsonNode latest = list.path("latestCheck");
    if (latest.path("unknown").asInt() > 0) {
      output()
          .line(
              "\n"
                  + latest.path("unknown").asInt()
                  + " not compared by the newest check "
                  + Output.text(latest.path("id"))
                  + " (their sync status is unknown):");
      notCompared(latest);
    }
    if (output().isTable() && list.path("nextCursor").isTextual()) {
      root().err.println("more: --cursor " + list.path("nextCursor").asText());
      root().err.flush();
    }
  }

  @Command(name = "get", description = "A finding with its field-level differences.")
  void get(
      @Parameters(index = "0", paramLabel = "CLUSTER") String cluster,
      @Parameters(index = "1", paramLabel = "FINDING") String finding) {
    HubClient hub = client();
    JsonNode f = hub.call(Endpoint.DRIFT_GET, clusterId(hub, cluster), finding);
    Output out = output();
    out.object(f, DETAIL);
    if (out.isTable()) {
      out.line("");
      out.line(Output.table(f.path("differences"), DIFFERENCES).stripTrailing());
    }
  }

  @Command(
      name = "check",
      description = {
        "Compare the cluster's delivered objects with the live ones now.",
        "Waits for the check to finish unless --no-wait; exit code 6 when it failed or did not"
            + " compare every object (those are listed with the reason)."
      })
  int check(
      @Parameters(paramLabel = "CLUSTER") String cluster,
      @Option(names = "--no-wait", description = "Print the check's id and return.") boolean noWait,
      @Option(names = "--timeout", defaultValue = "300", description = "Seconds to wait.")
          long timeout) {
    HubClient hub = client();
    String id = clusterId(hub, cluster);
    JsonNode c = hub.call(Endpoint.DRIFT_CHECK, Map.of(), null, Map.of(), id);
    Instant deadline = Instant.now().plus(Duration.ofSeconds(timeout));
    while (!noWait && !done(c) && Instant.now().isBefore(deadline)) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      c = hub.call(Endpoint.DRIFT_CHECK_GET, id, c.path("id").asText());
    }
    output().object(c, CHECK);
    if (c.path("unknown").asInt() > 0) {
      output().line("");
      notCompared(c);
    }
    if (noWait) {
      return ExitCode.OK;
    }
    if (!done(c)) {
      throw new CliException(
          ExitCode.ERROR, "the check did not finish within " + timeout + " s (it still runs)");
    }
    boolean complete =
        c.path("status").asText().equals("completed") && c.path("unknown").asInt() == 0;
    return complete ? ExitCode.OK : ExitCode.FAILED;
  }

  /** The table of a check's objects not compared (the hub keeps them for its newest checks). */
  private void notCompared(JsonNode check) {
    JsonNode objects = check.path("notCompared");
    if (objects.isEmpty()) {
      output().line("(the hub no longer keeps which objects; newer checks list theirs)");
    } else {
      output().line(Output.table(objects, NOT_COMPARED).stripTrailing());
    }
  }

  private static boolean done(JsonNode c) {
    String s = c.path("status").asText();
    return s.equals("completed") || s.equals("failed");
  }

  @Command(
      name = "resolve",
      description =
          "Ask for the resolve-drift command: re-apply the desired state, or sync the Argo CD"
              + " Application that manages the object. Runs under the cluster's approval policy.")
  void resolve(
      @Parameters(index = "0", paramLabel = "CLUSTER") String cluster,
      @Parameters(index = "1", paramLabel = "FINDING") String finding,
      @Option(names = "--reason", required = true) String reason,
      @Option(
              names = "--break-glass",
              paramLabel = "JUSTIFICATION",
              description = "Run without waiting for approvers; the justification is reviewed.")
          String breakGlass,
      @Option(names = "--idempotency-key") String idempotencyKey) {
    HubClient hub = client();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("reason", reason);
    if (breakGlass != null) {
      body.put("breakGlass", Map.of("justification", breakGlass));
    }
    JsonNode created =
        hub.call(
            Endpoint.DRIFT_RESOLVE,
            Map.of(),
            body,
            idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey),
            clusterId(hub, cluster),
            finding);
    output()
        .object(
            created,
            List.of(Output.Column.of("Command", "id"), Output.Column.of("Status", "status")));
  }
}
