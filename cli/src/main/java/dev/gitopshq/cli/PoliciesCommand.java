package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "policies",
    aliases = "policy",
    description = "The organization's Rego policies: read, publish, history, dry run, what-if.")
final class PoliciesCommand extends Base {
  private static final long MAX_FILE = 512 * 1024;

  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Version", "version"),
          Output.Column.of("Created by", "createdBy"),
          Output.Column.of("Created", "createdAt"));

  static final List<Output.Column> VERSIONS =
      List.of(
          Output.Column.of("Version", "version"),
          Output.Column.of("Active", "active"),
          Output.Column.of("Created by", "createdBy"),
          Output.Column.of("Created", "createdAt"));

  @Command(name = "list", aliases = "ls", description = "The active version of each policy.")
  void list() {
    JsonNode list = client().call(Endpoint.POLICIES_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(
      name = "get",
      description =
          "A policy's Rego text (the active version, or --version N); -o json|yaml for"
              + " the whole object.")
  void get(
      @Parameters(paramLabel = "NAME") String name, @Option(names = "--version") Integer version) {
    JsonNode p =
        version == null
            ? client().call(Endpoint.POLICIES_GET, name)
            : client().call(Endpoint.POLICIES_VERSION, name, version);
    Output out = output();
    if (out.isTable()) {
      String rego = p.path("rego").asText();
      root().out.print(rego.endsWith("\n") ? rego : rego + "\n");
      root().out.flush();
    } else {
      out.raw(p);
    }
  }

  @Command(name = "versions", description = "A policy's versions, newest first.")
  void versions(@Parameters(paramLabel = "NAME") String name) {
    JsonNode p = client().call(Endpoint.POLICIES_GET, name);
    output().print(p.path("versions"), p.path("versions"), VERSIONS);
  }

  @Command(
      name = "put",
      description = {
        "Publish a new version from a file. When OPA cannot compile it, its errors are printed as"
            + " FILE:LINE:COL: message."
      })
  void put(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = {"-f", "--file"},
              required = true,
              paramLabel = "FILE")
          Path file) {
    String rego = readFile(file);
    JsonNode p;
    try {
      p = client().call(Endpoint.POLICIES_PUT, Map.of(), Map.of("rego", rego), Map.of(), name);
    } catch (CliException e) {
      JsonNode errors = e.body() == null ? null : e.body().path("opaErrors");
      if (errors == null || !errors.isArray() || errors.isEmpty()) {
        throw e;
      }
      for (JsonNode err : errors) {
        JsonNode loc = err.path("location");
        root()
            .err
            .println(
                file
                    + ":"
                    + loc.path("row").asInt(0)
                    + ":"
                    + loc.path("col").asInt(0)
                    + ": "
                    + Output.oneLine(err.path("message").asText())
                    + " ("
                    + err.path("code").asText()
                    + ")");
      }
      throw new CliException(e.exitCode(), e.getMessage().lines().findFirst().orElse(""), e.body());
    }
    Output out = output();
    if (!out.isTable()) {
      out.raw(p);
    } else if (p.path("changed").asBoolean(true)) {
      out.line("Published " + name + " version " + p.path("version").asText() + ".");
    } else {
      out.line("Unchanged: " + name + " version " + p.path("version").asText() + " has this text.");
    }
  }

  @Command(
      name = "evaluate",
      description = {
        "Dry-run the active version on an input (nothing is recorded) and print the decision.",
        "The file holds the input object, or {\"input\": {...}}."
      })
  void evaluate(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = {"-f", "--input"},
              required = true,
              paramLabel = "FILE")
          Path file) {
    JsonNode input;
    try {
      input = HubClient.JSON.readTree(readFile(file));
    } catch (IOException e) {
      throw new CliException(ExitCode.USAGE, file + " is not JSON: " + e.getMessage());
    }
    if (!(input.size() == 1 && input.has("input"))) {
      input = HubClient.JSON.createObjectNode().set("input", input);
    }
    JsonNode r = client().call(Endpoint.POLICIES_EVALUATE, Map.of(), input, Map.of(), name);
    Output out = output();
    if (!out.isTable()) {
      out.raw(r);
      return;
    }
    out.line("policy " + name + " version " + r.path("version").asText() + ":");
    out.raw(r.path("decision"));
  }

  static final List<Output.Column> WHAT_IF =
      List.of(
          Output.Column.of("Kind", "kind"),
          Output.Column.of("Subject", "subjectId"),
          Output.Column.of("Decided", "at"),
          Output.Column.of("Recorded", "recordedOutcome"),
          new Output.Column(
              "Draft",
              n ->
                  n.path("draftOutcome").isTextual()
                      ? n.path("draftOutcome").asText()
                      : "no decision: " + Output.oneLine(n.path("draftError").asText())),
          Output.Column.of("Draft reasons", "draftReasons"));

  @Command(
      name = "what-if",
      description = {
        "Evaluate a draft (not published) against the organization's latest decisions of the"
            + " policy and list every decision it would change, recorded beside draft. Nothing is"
            + " recorded but an audit entry."
      })
  void whatIf(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = {"-f", "--file"},
              required = true,
              paramLabel = "FILE")
          Path file,
      @Option(
              names = "--limit",
              paramLabel = "N",
              description = "How many recorded decisions to evaluate, 1-500 (default 100).")
          Integer limit) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rego", readFile(file));
    if (limit != null) {
      body.put("limit", limit);
    }
    JsonNode r = client().call(Endpoint.POLICIES_WHAT_IF, Map.of(), body, Map.of(), name);
    Output out = output();
    if (!out.isTable()) {
      out.raw(r);
      return;
    }
    JsonNode changed = r.path("changed");
    out.print(r, changed, WHAT_IF);
    out.line(
        "Evaluated "
            + r.path("evaluated").asInt()
            + " of "
            + r.path("found").asInt()
            + " recorded decision(s) of "
            + name
            + ": "
            + changed.size()
            + " would change"
            + (r.path("inputNotRecorded").size() > 0
                ? "; "
                    + r.path("inputNotRecorded").size()
                    + " without a recorded input (not evaluated)"
                : "")
            + (r.path("timedOut").asBoolean() ? "; the time budget ran out before the rest" : "")
            + ".");
  }

  private static String readFile(Path file) {
    try {
      if (Files.size(file) > MAX_FILE) {
        throw new CliException(ExitCode.USAGE, file + " is larger than 512 KiB");
      }
      return Files.readString(file);
    } catch (IOException e) {
      throw new CliException(ExitCode.USAGE, "cannot read " + file + ": " + e.getMessage());
    }
  }
}
