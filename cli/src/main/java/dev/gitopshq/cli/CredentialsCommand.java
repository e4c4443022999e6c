package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gitopshq credentials}: the organization's synced credentials (credentials:write). Values
 * come only from files or standard input ({@code --from-file KEY=PATH}, {@code KEY=-} for stdin),
 * never from a flag's value, so they stay out of shell history and process lists; the hub never
 * returns them.
 */
@Command(
    name = "credentials",
    aliases = "credential",
    description = "Credentials synced to clusters as Secrets (values are write-only).")
final class CredentialsCommand extends Base {
  static final int MAX_FILE_BYTES = 256 * 1024;

  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Type", "type"),
          Output.Column.of("Version", "version"),
          Output.Column.of("Keys", "keys"),
          new Output.Column("Targets", n -> Integer.toString(n.path("targets").size())),
          Output.Column.of("Updated", "updatedAt"),
          Output.Column.of("Id", "id"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Type", "type"),
          Output.Column.of("Description", "description"),
          Output.Column.of("Version", "version"),
          Output.Column.of("Keys", "keys"),
          Output.Column.of("Fingerprint", "fingerprint"),
          new Output.Column(
              "Targets",
              n -> {
                List<String> t = new ArrayList<>();
                n.path("targets")
                    .forEach(
                        a ->
                            t.add(
                                a.path("clusterName").asText()
                                    + "/"
                                    + a.path("namespace").asText()
                                    + " "
                                    + status(a)));
                return String.join(", ", t);
              }),
          Output.Column.of("Updated", "updatedAt"));

  /** The cluster page's Credentials table. */
  static final List<Output.Column> STATUS =
      List.of(
          new Output.Column(
              "Credential", n -> n.path("name").asText() + " (" + n.path("type").asText() + ")"),
          Output.Column.of("Target namespace", "namespace"),
          new Output.Column("Sync status", CredentialsCommand::status),
          Output.Column.of("Last synced", "lastSyncedAt"),
          Output.Column.of("Error", "error"));

  /** A target's status, saying when the organization's credentials policy denied it. */
  static String status(JsonNode target) {
    String status = target.path("status").asText();
    return target.path("deniedByPolicy").asBoolean(false) ? status + " (denied by policy)" : status;
  }

  @Command(name = "list", aliases = "ls", description = "The organization's credentials.")
  void list() {
    JsonNode list = client().call(Endpoint.CREDENTIALS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "One credential (by name or id): metadata and targets.")
  void get(@Parameters(paramLabel = "CREDENTIAL") String credential) {
    HubClient hub = client();
    output().object(hub.call(Endpoint.CREDENTIALS_GET, credentialId(hub, credential)), DETAIL);
  }

  @Command(
      name = "create",
      description = {
        "Create a credential. Types: dockerconfigjson (--from-file .dockerconfigjson=PATH), tls"
            + " (--from-file tls.crt=PATH --from-file tls.key=PATH), opaque (any keys).",
        "PATH - reads standard input."
      })
  void create(
      @Parameters(paramLabel = "NAME", description = "The Secret's name (RFC 1123 label).")
          String name,
      @Option(names = "--type", required = true, description = "dockerconfigjson, tls or opaque")
          String type,
      @Option(names = "--description") String description,
      @Option(
              names = "--from-file",
              paramLabel = "KEY=PATH",
              required = true,
              description = "A key and the file holding its value (repeatable; - is stdin).")
          List<String> files) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("type", type);
    ClustersCommand.putIf(body, "description", description);
    body.put("data", read(files));
    JsonNode c = client().call(Endpoint.CREDENTIALS_CREATE, Map.of(), body, Map.of());
    output().object(c, DETAIL);
  }

  @Command(
      name = "update",
      description = "Replace a credential's values and/or description; it re-syncs everywhere.")
  void update(
      @Parameters(paramLabel = "CREDENTIAL") String credential,
      @Option(names = "--description") String description,
      @Option(
              names = "--from-file",
              paramLabel = "KEY=PATH",
              description = "The new values, all keys (repeatable; - is stdin).")
          List<String> files) {
    if ((files == null || files.isEmpty()) && description == null) {
      throw new CliException(ExitCode.USAGE, "give --from-file and/or --description");
    }
    Map<String, Object> body = new LinkedHashMap<>();
    ClustersCommand.putIf(body, "description", description);
    if (files != null && !files.isEmpty()) {
      body.put("data", read(files));
    }
    HubClient hub = client();
    JsonNode c =
        hub.call(
            Endpoint.CREDENTIALS_UPDATE, Map.of(), body, Map.of(), credentialId(hub, credential));
    output().object(c, DETAIL);
  }

  @Command(
      name = "delete",
      description = "Delete a credential; its Secrets are removed from every cluster.")
  void delete(@Parameters(paramLabel = "CREDENTIAL") String credential) {
    HubClient hub = client();
    hub.call(Endpoint.CREDENTIALS_DELETE, credentialId(hub, credential));
    output().line("Deleted credential " + credential + ".");
  }

  @Command(
      name = "assign",
      description = {
        "Set where a credential is synced: every --target CLUSTER=NS[,NS...] (repeatable);"
            + " clusters not named are unassigned. --none unassigns it everywhere."
      })
  void assign(
      @Parameters(paramLabel = "CREDENTIAL") String credential,
      @Option(names = "--target", paramLabel = "CLUSTER=NS[,NS...]") List<String> targets,
      @Option(names = "--none", description = "Unassign it from every cluster.") boolean none) {
    boolean noTargets = targets == null || targets.isEmpty();
    if (noTargets == !none) {
      // Neither or both: an empty assignment must be asked for explicitly.
      throw new CliException(ExitCode.USAGE, "give --target CLUSTER=NS[,NS...] or --none");
    }
    HubClient hub = client();
    List<Map<String, Object>> assignments = new ArrayList<>();
    for (String t : targets == null ? List.<String>of() : targets) {
      int eq = t.indexOf('=');
      if (eq <= 0 || eq == t.length() - 1) {
        throw new CliException(ExitCode.USAGE, "--target must be CLUSTER=NS[,NS...]: " + t);
      }
      Map<String, Object> a = new LinkedHashMap<>();
      a.put("clusterId", clusterId(hub, t.substring(0, eq)));
      a.put("namespaces", List.of(t.substring(eq + 1).split(",")));
      assignments.add(a);
    }
    JsonNode c =
        hub.call(
            Endpoint.CREDENTIALS_ASSIGN,
            Map.of(),
            Map.of("assignments", assignments),
            Map.of(),
            credentialId(hub, credential));
    output().object(c, DETAIL);
  }

  /** Reads KEY=PATH pairs; a value is never taken from the command line itself. */
  Map<String, String> read(List<String> files) {
    Map<String, String> data = new LinkedHashMap<>();
    boolean stdinUsed = false;
    for (String f : files) {
      int eq = f.indexOf('=');
      if (eq <= 0 || eq == f.length() - 1) {
        throw new CliException(ExitCode.USAGE, "--from-file must be KEY=PATH: " + f);
      }
      String key = f.substring(0, eq);
      String path = f.substring(eq + 1);
      byte[] bytes;
      try {
        if (path.equals("-")) {
          if (stdinUsed) {
            throw new CliException(ExitCode.USAGE, "only one --from-file can read stdin");
          }
          stdinUsed = true;
          bytes = root().stdin.readNBytes(MAX_FILE_BYTES + 1);
        } else {
          Path p = Path.of(path);
          if (Files.size(p) > MAX_FILE_BYTES) {
            throw new CliException(
                ExitCode.USAGE, path + " is larger than " + MAX_FILE_BYTES + " bytes");
          }
          bytes = Files.readAllBytes(p);
        }
      } catch (IOException e) {
        throw new CliException(ExitCode.USAGE, "cannot read " + path + ": " + e.getMessage());
      }
      if (bytes.length > MAX_FILE_BYTES) {
        throw new CliException(ExitCode.USAGE, "the value of " + key + " is larger than 256 KiB");
      }
      data.put(key, new String(bytes, StandardCharsets.UTF_8));
    }
    return data;
  }

  private String credentialId(HubClient hub, String idOrName) {
    if (idOrName.matches("[0-9a-fA-F-]{36}")) {
      return idOrName;
    }
    for (JsonNode n : hub.call(Endpoint.CREDENTIALS_LIST).path("items")) {
      if (idOrName.equals(n.path("name").asText())) {
        return n.path("id").asText();
      }
    }
    throw new CliException(ExitCode.NOT_FOUND, "no credential named " + idOrName);
  }
}
