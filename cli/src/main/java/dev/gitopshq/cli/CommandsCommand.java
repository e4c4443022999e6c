package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.agent.v1.CommandParamSpec;
import dev.gitopshq.agent.v1.CommandParams;
import dev.gitopshq.agent.v1.CommandTypeSpec;
import dev.gitopshq.agent.v1.CommandTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "commands",
    aliases = "command",
    description = "Operational commands on a cluster (`commands types` lists the types).")
final class CommandsCommand extends Base {
  /** The statuses after which a command does not change any more. */
  static final Set<String> TERMINAL =
      Set.of("completed", "failed", "rejected", "expired", "cancelled", "frozen");

  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Type", "type"),
          Output.Column.of("Status", "status"),
          new Output.Column(
              "Target",
              n ->
                  Output.text(n.at("/target/kind"))
                      + "/"
                      + Output.text(n.at("/target/namespace"))
                      + "/"
                      + Output.text(n.at("/target/name"))),
          Output.Column.of("Requester", "/requester/name"),
          Output.Column.of("Created", "createdAt"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Cluster", "clusterId"),
          Output.Column.of("Type", "type"),
          Output.Column.of("Target", "target"),
          Output.Column.of("Params", "params"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Detail", "statusDetail"),
          Output.Column.of("Reason", "reason"),
          Output.Column.of("Requester", "/requester/name"),
          Output.Column.of("Break-glass", "breakGlass"),
          Output.Column.of("Decision", "/decision/outcome"),
          Output.Column.of("Policy", "/decision/policy"),
          Output.Column.of("Output", "output"),
          Output.Column.of("Error", "error"),
          Output.Column.of("Created", "createdAt"));

  static final List<Output.Column> TIMELINE =
      List.of(
          Output.Column.of("Seq", "seq"),
          Output.Column.of("At", "at"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Actor", "actor"),
          Output.Column.of("Detail", "detail"));

  @Command(name = "create", description = "Ask for a command; prints its id and status.")
  void create(
      @Parameters(paramLabel = "CLUSTER", description = "The cluster's name or id.") String cluster,
      @Option(
              names = "--type",
              required = true,
              completionCandidates = TypeNames.class,
              description =
                  "One of: ${COMPLETION-CANDIDATES} (`commands types` lists each one's params).")
          String type,
      @Option(
              names = {"-n", "--namespace"},
              required = true)
          String namespace,
      @Option(names = "--kind", description = "The target's kind (default: the type's).")
          String kind,
      @Option(names = "--name", required = true, description = "The target object's name.")
          String name,
      @Option(
              names = {"-p", "--param"},
              paramLabel = "KEY=VALUE",
              description = "A parameter, e.g. replicas=3 (numbers and true/false are typed).")
          Map<String, String> params,
      @Option(names = "--reason") String reason,
      @Option(
              names = "--break-glass",
              paramLabel = "JUSTIFICATION",
              description = "Run without waiting for approvers; the justification is reviewed.")
          String breakGlass,
      @Option(names = "--idempotency-key") String idempotencyKey) {
    CommandTypeSpec spec = requestable(type);
    String targetKind =
        kind != null
            ? kind
            : spec.getTargetKindsList().stream()
                .findFirst()
                .orElseThrow(
                    () ->
                        new CliException(
                            ExitCode.USAGE, "--kind is required for a " + type + " command"));
    if (spec.getTargetKindsCount() > 0 && !spec.getTargetKindsList().contains(targetKind)) {
      throw new CliException(
          ExitCode.USAGE,
          "--kind must be "
              + String.join(" or ", spec.getTargetKindsList())
              + " for a "
              + type
              + " command");
    }
    Map<String, Object> typed = new LinkedHashMap<>();
    if (params != null) {
      params.forEach((k, v) -> typed.put(k, typed(v)));
    }
    CommandParams.Checked checked = CommandParams.check(spec, typed);
    if (!checked.ok()) {
      throw new CliException(
          ExitCode.USAGE,
          checked.problems().stream()
              .map(p -> p.field() + ": " + p.message())
              .collect(Collectors.joining("\n")));
    }
    HubClient hub = client();
    Map<String, Object> target = new LinkedHashMap<>();
    target.put("namespace", namespace);
    target.put("kind", targetKind);
    target.put("name", name);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", type);
    body.put("target", target);
    if (!typed.isEmpty()) {
      body.put("params", typed);
    }
    ClustersCommand.putIf(body, "reason", reason);
    if (breakGlass != null) {
      body.put("breakGlass", Map.of("justification", breakGlass));
    }
    JsonNode created =
        hub.call(
            Endpoint.COMMANDS_CREATE,
            Map.of(),
            body,
            idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey),
            clusterId(hub, cluster));
    output()
        .object(
            created, List.of(Output.Column.of("Id", "id"), Output.Column.of("Status", "status")));
  }

  /** A parameter value: an integer or a boolean when it looks like one, else the text. */
  static Object typed(String v) {
    if (v.matches("-?\\d{1,9}")) {
      return Integer.parseInt(v);
    }
    if (v.equals("true") || v.equals("false")) {
      return Boolean.parseBoolean(v);
    }
    return v;
  }

  /** The type a person may ask for by this name; a usage error names the others. */
  static CommandTypeSpec requestable(String type) {
    return CommandTypes.requestable().stream()
        .filter(s -> s.getName().equals(type))
        .findFirst()
        .orElseThrow(
            () ->
                new CliException(
                    ExitCode.USAGE,
                    CommandTypes.spec(type)
                        .filter(s -> !s.getRequestedElsewhere().isEmpty())
                        .map(s -> type + " " + s.getRequestedElsewhere())
                        .orElse("--type must be one of " + String.join(", ", new TypeNames()))));
  }

  /** The names {@code --type} accepts, in the API's order (shell completion and help). */
  static final class TypeNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return CommandTypes.requestable().stream().map(CommandTypeSpec::getName).iterator();
    }
  }

  static final List<Output.Column> TYPES =
      List.of(
          Output.Column.of("Type", "name"),
          new Output.Column("Target", n -> Output.text(n.path("targetKinds"))),
          Output.Column.of("Capability", "capability"),
          Output.Column.of("Params", "usage"),
          Output.Column.of("Summary", "summary"));

  @Command(
      name = "types",
      description = "The command types, each with its target kind, capability and params.")
  void types() {
    ArrayNode items = JsonNodeFactory.instance.arrayNode();
    for (CommandTypeSpec s : CommandTypes.requestable()) {
      ObjectNode t = items.addObject();
      t.put("name", s.getName());
      t.put("summary", s.getSummary());
      t.put("capability", s.getCapability());
      s.getTargetKindsList().forEach(t.putArray("targetKinds")::add);
      t.put("usage", usage(s));
      ArrayNode ps = t.putArray("params");
      for (CommandParamSpec d : s.getParamsList()) {
        ObjectNode p = ps.addObject();
        p.put("name", d.getName());
        p.put("type", d.getType().name().toLowerCase(Locale.ROOT));
        p.put("required", d.getRequired());
        if (d.getType() == CommandParamSpec.Type.INT) {
          p.put("min", d.getMin());
          if (d.hasMax()) {
            p.put("max", d.getMax());
          }
        } else {
          p.put("maxLength", d.getMaxLength());
        }
        p.put("summary", d.getSummary());
      }
      s.getExactlyOneOfList().forEach(t.putArray("exactlyOneOf")::add);
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.set("items", items);
    output().print(out, items, TYPES);
  }

  /**
   * A type's params as {@code -p} takes them, e.g. {@code replicas=0..1000 (required)} or, for
   * exclusive ones, {@code revision=TEXT | historyId=0.. (one of them)}.
   */
  static String usage(CommandTypeSpec s) {
    List<String> parts = new ArrayList<>();
    List<String> exclusive = new ArrayList<>();
    for (CommandParamSpec d : s.getParamsList()) {
      String value =
          d.getName()
              + "="
              + (d.getType() == CommandParamSpec.Type.INT
                  ? d.getMin() + ".." + (d.hasMax() ? Integer.toString(d.getMax()) : "")
                  : "TEXT");
      if (s.getExactlyOneOfList().contains(d.getName())) {
        exclusive.add(value);
      } else {
        parts.add(value + (d.getRequired() ? " (required)" : ""));
      }
    }
    if (!exclusive.isEmpty()) {
      parts.add(String.join(" | ", exclusive) + " (one of them)");
    }
    return String.join(", ", parts);
  }

  @Command(name = "list", aliases = "ls", description = "A cluster's commands, newest first.")
  void list(
      @Parameters(paramLabel = "CLUSTER") String cluster,
      @Option(names = "--status") String status,
      @Option(names = "--type") String type,
      @Option(names = "--from", description = "RFC 3339, on creation time") String from,
      @Option(names = "--to") String to,
      @Option(names = "--limit", description = "1-200 (default 50)") Integer limit,
      @Option(names = "--cursor", description = "The previous page's next cursor.") String cursor) {
    HubClient hub = client();
    Map<String, List<String>> q = new LinkedHashMap<>();
    query(q, "status", status);
    query(q, "type", type);
    query(q, "from", from);
    query(q, "to", to);
    query(q, "limit", limit);
    query(q, "cursor", cursor);
    JsonNode list = hub.call(Endpoint.COMMANDS_LIST, q, null, Map.of(), clusterId(hub, cluster));
    output().print(list, items(list), LIST);
    nextCursor(list);
  }

  void nextCursor(JsonNode list) {
    if (output().isTable() && list.path("nextCursor").isTextual()) {
      root().err.println("more: --cursor " + list.path("nextCursor").asText());
      root().err.flush();
    }
  }

  static void query(Map<String, List<String>> q, String key, Object value) {
    if (value != null) {
      q.put(key, List.of(String.valueOf(value)));
    }
  }

  @Command(name = "get", description = "A command with its decision, approvals and timeline.")
  void get(@Parameters(paramLabel = "ID") String id) {
    JsonNode c = client().call(Endpoint.COMMANDS_GET, id);
    Output out = output();
    out.object(c, DETAIL);
    if (out.isTable()) {
      out.line("");
      out.line(Output.table(c.path("timeline"), TIMELINE).stripTrailing());
    }
  }

  @Command(
      name = "cancel",
      description = "Cancel your own command while it is pending or waiting for approval.")
  void cancel(@Parameters(paramLabel = "ID") String id) {
    JsonNode r = client().call(Endpoint.COMMANDS_CANCEL, Map.of(), null, Map.of(), id);
    output().object(r, List.of(Output.Column.of("Id", "id"), Output.Column.of("Status", "status")));
  }

  @Command(
      name = "watch",
      description = {
        "Follow a command until it ends, printing its timeline as it grows.",
        "Exit code 0 when it completed, 6 when it failed, was rejected, expired, was cancelled"
            + " or was frozen (a freeze window holds it)."
      })
  int watch(
      @Parameters(paramLabel = "ID") String id,
      @Option(names = "--interval", defaultValue = "2", description = "Seconds between polls.")
          long interval,
      @Option(
              names = "--timeout",
              defaultValue = "3600",
              description = "Give up after this many seconds (exit code 1).")
          long timeout) {
    HubClient hub = client();
    Output out = output();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(timeout));
    long printed = -1;
    boolean header = false;
    while (true) {
      JsonNode c = hub.call(Endpoint.COMMANDS_GET, id);
      if (out.isTable()) {
        List<JsonNode> fresh = new ArrayList<>();
        for (JsonNode e : c.path("timeline")) {
          if (e.path("seq").asLong() > printed) {
            fresh.add(e);
            printed = e.path("seq").asLong();
          }
        }
        if (!fresh.isEmpty()) {
          String t = Output.table(fresh, TIMELINE);
          // The header once; later rows line up with it as well as they can.
          out.line((header ? t.substring(t.indexOf('\n') + 1) : t).stripTrailing());
          header = true;
        }
      }
      String status = c.path("status").asText();
      if (TERMINAL.contains(status)) {
        if (out.isTable()) {
          out.line("Command " + id + " " + status + statusDetail(c));
        } else {
          out.raw(c);
        }
        return status.equals("completed") ? ExitCode.OK : ExitCode.FAILED;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new CliException(
            ExitCode.ERROR, "command " + id + " is still " + status + " after " + timeout + " s");
      }
      try {
        Thread.sleep(Duration.ofSeconds(Math.max(1, interval)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CliException(ExitCode.ERROR, "interrupted");
      }
    }
  }

  private static String statusDetail(JsonNode c) {
    String d = c.path("statusDetail").asText("");
    return d.isEmpty() ? "" : ": " + Output.oneLine(d);
  }
}
