package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "policies",
    aliases = "policy",
    description = "The organization's Rego policies: read, publish, history, dry run.")
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
