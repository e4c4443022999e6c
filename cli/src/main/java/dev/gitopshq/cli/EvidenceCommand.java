package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.evidence.Ed25519;
import dev.gitopshq.evidence.EvidenceVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "evidence",
    description = "Signed evidence of a command or a release: download it, and verify it offline.")
final class EvidenceCommand extends Base {
  static final List<Output.Column> KEYS =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Algorithm", "algorithm"),
          Output.Column.of("Created", "createdAt"));

  /** Largest evidence or history file read (the hub answers at most 32 MiB too). */
  static final long MAX_FILE = 32L * 1024 * 1024;

  @Command(
      name = "get",
      description = {
        "Download the signed evidence of a command (command ID) or a release (release PROJECT"
            + " NUMBER), to FILE or standard output."
      })
  void get(
      @Parameters(index = "0", paramLabel = "command|release") String kind,
      @Parameters(index = "1..*", paramLabel = "ID | PROJECT NUMBER") List<String> ids,
      @Option(
              names = {"-f", "--file"},
              description = "Write to this file.")
          Path file) {
    HubClient hub = client();
    JsonNode doc =
        switch (kind) {
          case "command" -> {
            if (ids.size() != 1) {
              throw new CliException(ExitCode.USAGE, "usage: evidence get command ID");
            }
            yield hub.call(Endpoint.COMMAND_EVIDENCE, ids.get(0));
          }
          case "release" -> {
            if (ids.size() != 2) {
              throw new CliException(ExitCode.USAGE, "usage: evidence get release PROJECT NUMBER");
            }
            yield hub.call(Endpoint.RELEASE_EVIDENCE, projectId(hub, ids.get(0)), ids.get(1));
          }
          default ->
              throw new CliException(
                  ExitCode.USAGE, "evidence get: 'command' or 'release', not '" + kind + "'");
        };
    write(this, doc, file);
  }

  @Command(name = "keys", description = "The hub's public evidence keys, the signing one first.")
  void keys() {
    JsonNode keys = client().call(Endpoint.EVIDENCE_KEYS);
    output().print(keys, keys.path("keys"), KEYS);
  }

  @Command(
      name = "verify",
      description = {
        "Check an evidence file offline: its Ed25519 signature against the hub's public key, that"
            + " its audit entries chain, and (with --history) that the workflow history matches"
            + " the hash it names.",
        "The key comes from --key (a PEM or base64 file, e.g. saved from 'evidence keys -o"
            + " json'); without it, from the hub (GET /api/v2/evidence/keys).",
        "Exit code 0 when every check passes, 6 when one fails."
      })
  int verify(
      @Parameters(paramLabel = "FILE") Path file,
      @Option(names = "--history", description = "A history from 'audit history'.") Path history,
      @Option(names = "--key", description = "The hub's public key (PEM or base64).") Path key) {
    byte[] doc = read(file);
    byte[] hist = history == null ? null : read(history);
    PublicKey trusted = key == null ? fromHub(doc) : parseKey(key);
    EvidenceVerifier.Result r = EvidenceVerifier.verify(doc, trusted, hist);
    Output out = output();
    if (out.isTable()) {
      for (EvidenceVerifier.Check c : r.checks()) {
        out.line((c.ok() ? "ok      " : "FAILED  ") + c.name() + ": " + Output.oneLine(c.reason()));
      }
      out.line(r.valid() ? "Evidence verified." : "Evidence NOT verified.");
    } else {
      ObjectNode n = HubClient.JSON.createObjectNode();
      n.put("valid", r.valid());
      n.put("keyId", r.keyId());
      ArrayNode checks = n.putArray("checks");
      for (EvidenceVerifier.Check c : r.checks()) {
        checks.addObject().put("name", c.name()).put("ok", c.ok()).put("reason", c.reason());
      }
      out.raw(n);
    }
    return r.valid() ? ExitCode.OK : ExitCode.FAILED;
  }

  /** The key the document names, as the hub publishes it. */
  private PublicKey fromHub(byte[] doc) {
    String keyId;
    try {
      keyId = HubClient.JSON.readTree(doc).at("/signature/keyId").asText("");
    } catch (IOException e) {
      return null; // the verifier reports the format
    }
    for (JsonNode k : client().call(Endpoint.EVIDENCE_KEYS).path("keys")) {
      if (k.path("id").asText().equals(keyId)) {
        return Ed25519.publicKey(k.path("publicKey").asText());
      }
    }
    throw new CliException(
        ExitCode.NOT_FOUND, "the hub publishes no key with the document's key id '" + keyId + "'");
  }

  private static PublicKey parseKey(Path file) {
    try {
      return Ed25519.publicKey(new String(read(file), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new CliException(
          ExitCode.USAGE, file + " is not an Ed25519 public key (PEM or base64 DER)");
    }
  }

  static byte[] read(Path file) {
    try {
      if (Files.size(file) > MAX_FILE) {
        throw new CliException(ExitCode.ERROR, file + " is larger than 32 MiB");
      }
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new CliException(ExitCode.ERROR, "cannot read " + file + ": " + e.getMessage());
    }
  }

  /** A document to a file (pretty JSON) or to the output. */
  static void write(Base command, JsonNode doc, Path file) {
    if (file == null) {
      command.output().raw(doc);
      return;
    }
    try {
      Files.write(file, HubClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc));
    } catch (IOException e) {
      throw new CliException(ExitCode.ERROR, "cannot write " + file + ": " + e.getMessage());
    }
    command.root().err.println("wrote " + file);
    command.root().err.flush();
  }
}
