package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "clusters",
    aliases = "cluster",
    description = "Register, list, inspect and remove clusters.")
final class ClustersCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Provider", "provider"),
          Output.Column.of("Agent", "agentVersion"),
          Output.Column.of("Last seen", "lastSeen"),
          Output.Column.of("Id", "id"));

  static final List<Output.Column> DETAIL =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Name", "name"),
          Output.Column.of("Display name", "displayName"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Provider", "provider"),
          Output.Column.of("Region", "region"),
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Labels", "labels"),
          Output.Column.of("Reported labels", "reportedLabels"),
          Output.Column.of("Effective labels", "effectiveLabels"),
          Output.Column.of("Agent", "agentVersion"),
          Output.Column.of("Capabilities", "capabilities"),
          Output.Column.of("Last seen", "lastSeen"),
          Output.Column.of("Registered", "registeredAt"),
          Output.Column.of("Created", "createdAt"),
          Output.Column.of("Acceptance", "/acceptance/state"),
          Output.Column.of("API server SHA-256", "/acceptance/apiServerSha256"),
          Output.Column.of("Nodes", "/acceptance/nodeCount"),
          Output.Column.of("Kubernetes", "/acceptance/kubernetesVersion"));

  @Command(name = "list", aliases = "ls", description = "List the organization's clusters.")
  void list(
      @Option(
              names = "--label",
              paramLabel = "KEY:VALUE",
              description = "Only clusters with this label (repeatable; all must match).")
          List<String> labels) {
    JsonNode list =
        client()
            .call(
                Endpoint.CLUSTERS_LIST,
                Map.of("label", labels == null ? List.of() : labels),
                null,
                Map.of());
    output().print(list, items(list), LIST);
  }

  @Command(name = "get", description = "Show one cluster (by name or id).")
  void get(@Parameters(paramLabel = "CLUSTER") String cluster) {
    HubClient hub = client();
    output().object(hub.call(Endpoint.CLUSTERS_GET, clusterId(hub, cluster)), DETAIL);
  }

  @Command(
      name = "register",
      description = {
        "Register a cluster: prints the one-time registration token and the Helm command that"
            + " installs the agent with it (valid for one hour)."
      })
  void register(
      @Parameters(paramLabel = "NAME", description = "RFC 1123 label, unique in the organization.")
          String name,
      @Option(names = "--display-name") String displayName,
      @Option(
              names = "--provider",
              description = "eks, gke, aks, on-prem, openshift, k3s, kind, other")
          String provider,
      @Option(names = "--region") String region,
      @Option(names = "--environment") String environment,
      @Option(names = "--label", paramLabel = "KEY=VALUE", description = "Repeatable.")
          Map<String, String> labels,
      @Option(
              names = "--require-acceptance",
              arity = "1",
              paramLabel = "true|false",
              description =
                  "Whether an admin must accept the agent before the hub uses it (default: the"
                      + " organization's setting, see 'clusters acceptance').")
          Boolean requireAcceptance) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    putIf(body, "requireAcceptance", requireAcceptance);
    putIf(body, "displayName", displayName);
    putIf(body, "provider", provider);
    putIf(body, "region", region);
    putIf(body, "environment", environment);
    if (labels != null) {
      body.put("labels", labels);
    }
    JsonNode created = client().call(Endpoint.CLUSTERS_CREATE, Map.of(), body, Map.of());
    printRegistration(created, "Registered cluster " + name + ".");
  }

  /** {@code key=value} sets a label, {@code key-} removes one (kubectl's syntax). */
  private static final Pattern LABEL_ARG = Pattern.compile("([^=]+)=(.*)|(.+)-");

  @Command(
      name = "label",
      description = {
        "Set (key=value) or remove (key-) labels set in the hub, as kubectl label does. Project"
            + " environments' selectors move the cluster in or out at once (a configuration commit"
            + " per project). Labels the agent reports (its chart's cluster.labels) are apart:"
            + " a label set here wins over a reported one with the same key."
      })
  void label(
      @Parameters(index = "0", paramLabel = "CLUSTER") String cluster,
      @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY=VALUE|KEY-")
          List<String> changes,
      @Option(
              names = "--overwrite",
              description = "Allow changing the value of a label that is set already.")
          boolean overwrite) {
    HubClient hub = client();
    String id = clusterId(hub, cluster);
    JsonNode current = hub.call(Endpoint.CLUSTERS_GET, id);
    Map<String, String> labels = new TreeMap<>();
    JsonNode set = current.path("labels");
    set.fieldNames().forEachRemaining(k -> labels.put(k, set.get(k).asText()));
    Map<String, String> updated = applyLabelChanges(labels, changes, overwrite);
    if (updated.equals(labels)) {
      // Nothing to change (kubectl says "not labeled"): no PATCH, no commit.
      output().object(current, DETAIL);
      return;
    }
    JsonNode after =
        hub.call(Endpoint.CLUSTERS_UPDATE, Map.of(), Map.of("labels", updated), Map.of(), id);
    output().object(after, DETAIL);
  }

  /**
   * The labels after kubectl-style changes: {@code key=value} sets, {@code key-} removes.
   *
   * @throws CliException a change that is neither, or that changes a set value without {@code
   *     overwrite}
   */
  static Map<String, String> applyLabelChanges(
      Map<String, String> labels, List<String> changes, boolean overwrite) {
    Map<String, String> out = new TreeMap<>(labels);
    for (String change : changes) {
      Matcher m = LABEL_ARG.matcher(change);
      if (!m.matches()) {
        throw new CliException(
            ExitCode.USAGE, "'" + change + "' is neither key=value (set) nor key- (remove)");
      }
      if (m.group(3) != null) {
        out.remove(m.group(3));
        continue;
      }
      String old = out.get(m.group(1));
      if (old != null && !old.equals(m.group(2)) && !overwrite) {
        throw new CliException(
            ExitCode.USAGE,
            "label '"
                + m.group(1)
                + "' is already set to '"
                + old
                + "'; give --overwrite to change it");
      }
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  @Command(
      name = "join-token",
      description =
          "A new registration token and install command; earlier unused tokens stop working.")
  void joinToken(
      @Parameters(paramLabel = "CLUSTER") String cluster,
      @Option(
              names = "--require-acceptance",
              arity = "1",
              paramLabel = "true|false",
              description =
                  "Whether an admin must accept the agent that registers with the token (default:"
                      + " the organization's setting).")
          Boolean requireAcceptance) {
    HubClient hub = client();
    Map<String, Object> body =
        requireAcceptance == null ? null : Map.of("requireAcceptance", requireAcceptance);
    JsonNode created =
        hub.call(Endpoint.CLUSTERS_JOIN_TOKEN, Map.of(), body, Map.of(), clusterId(hub, cluster));
    printRegistration(created, "New registration token for " + cluster + ".");
  }

  /** Calls a bodiless endpoint on the cluster named or identified by {@code cluster}. */
  private JsonNode callOn(Endpoint endpoint, String cluster) {
    HubClient hub = client();
    return hub.call(endpoint, Map.of(), null, Map.of(), clusterId(hub, cluster));
  }

  @Command(
      name = "accept",
      description = {
        "Accept a cluster whose agent waits for an admin (status PendingAcceptance): check the"
            + " identity 'clusters get' shows first. The agent gets work at once."
      })
  void accept(@Parameters(paramLabel = "CLUSTER") String cluster) {
    output().object(callOn(Endpoint.CLUSTERS_ACCEPT, cluster), DETAIL);
  }

  @Command(
      name = "reject",
      description = {
        "Reject a cluster whose agent waits for an admin: its agent token is revoked and its"
            + " stream closed; a new join token is needed to register it again."
      })
  void reject(@Parameters(paramLabel = "CLUSTER") String cluster) {
    output().object(callOn(Endpoint.CLUSTERS_REJECT, cluster), DETAIL);
  }

  @Command(
      name = "acceptance",
      description = {
        "Show, or with --require set, whether newly registered agents of the organization wait"
            + " for an admin's acceptance (a join token's own --require-acceptance wins)."
      })
  void acceptance(
      @Option(names = "--require", arity = "1", paramLabel = "true|false") Boolean require) {
    HubClient hub = client();
    JsonNode r =
        require == null
            ? hub.call(Endpoint.CLUSTERS_ACCEPTANCE_GET)
            : hub.call(
                Endpoint.CLUSTERS_ACCEPTANCE_PUT,
                Map.of(),
                Map.of("requireAcceptance", require),
                Map.of());
    output().object(r, List.of(Output.Column.of("Require acceptance", "requireAcceptance")));
  }

  static final List<Output.Column> CERTIFICATES =
      List.of(
          Output.Column.of("Serial", "serial"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Not before", "notBefore"),
          Output.Column.of("Not after", "notAfter"),
          Output.Column.of("Revoked", "revokedAt"),
          Output.Column.of("Revoked by", "revokedBy"));

  @Command(
      name = "certificate",
      aliases = "cert",
      description = {
        "The agent's client certificates (mutual TLS): 'show CLUSTER' lists them, newest first;"
            + " 'revoke CLUSTER' revokes every live one, which ends the agent's stream at once;"
            + " 'ca' shows the organization's agent CA (--pem prints only its certificate) and,"
            + " with --require, sets whether agents must present a certificate."
      })
  void certificate(
      @Parameters(index = "0", paramLabel = "show|revoke|ca") String action,
      @Parameters(index = "1", arity = "0..1", paramLabel = "CLUSTER") String cluster,
      @Option(names = "--require", arity = "1", paramLabel = "true|false") Boolean require,
      @Option(names = "--pem", description = "With ca: print only the CA certificate (PEM).")
          boolean pem) {
    HubClient hub = client();
    switch (action) {
      case "ca" -> {
        JsonNode ca =
            require == null
                ? hub.call(Endpoint.AGENT_CA_GET)
                : hub.call(
                    Endpoint.AGENT_CA_PUT,
                    Map.of(),
                    Map.of("requireCertificate", require),
                    Map.of());
        if (pem) {
          root().out.print(ca.path("certificatePem").asText());
          root().out.flush();
          return;
        }
        output()
            .object(
                ca,
                List.of(
                    Output.Column.of("Require certificate", "requireCertificate"),
                    Output.Column.of("Certificate validity (s)", "certificateValiditySeconds"),
                    Output.Column.of("CA SHA-256", "fingerprintSha256"),
                    Output.Column.of("CA not after", "notAfter")));
      }
      case "show", "revoke" -> {
        if (cluster == null) {
          throw new CliException(ExitCode.USAGE, "certificate " + action + " needs a CLUSTER");
        }
        String id = clusterId(hub, cluster);
        if (action.equals("revoke")) {
          JsonNode r = hub.call(Endpoint.CLUSTERS_CERTIFICATE_REVOKE, Map.of(), null, Map.of(), id);
          int n = r.path("revoked").size();
          root()
              .err
              .println(
                  n == 0
                      ? cluster + " had no live client certificate"
                      : "revoked "
                          + n
                          + " client certificate(s) of "
                          + cluster
                          + "; its agent's stream ends now");
          root().err.flush();
        }
        JsonNode c = hub.call(Endpoint.CLUSTERS_CERTIFICATE_GET, id);
        List<JsonNode> rows = new ArrayList<>();
        c.path("certificates").forEach(rows::add);
        output().print(c, rows, CERTIFICATES);
      }
      default ->
          throw new CliException(
              ExitCode.USAGE, "certificate takes show, revoke or ca, not " + action);
    }
  }

  static final List<Output.Column> DIRECT_APPLIES =
      List.of(
          Output.Column.of("Project", "project"),
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Commit", "commit"),
          Output.Column.of("Status", "status"),
          Output.Column.of("Applied", "applied"),
          Output.Column.of("Pruned", "pruned"),
          Output.Column.of("Failed", "failed"),
          Output.Column.of("Finished", "finishedAt"),
          Output.Column.of("Error", "error"));

  @Command(
      name = "direct-deploys",
      description =
          "What the agent applied in direct delivery mode: the latest applies (-o json also lists"
              + " the objects they placed).")
  void directDeploys(@Parameters(paramLabel = "CLUSTER") String cluster) {
    HubClient hub = client();
    JsonNode d = hub.call(Endpoint.CLUSTERS_DIRECT_DEPLOYS, clusterId(hub, cluster));
    if (!d.path("capability").asBoolean()) {
      root()
          .err
          .println(
              "note: the cluster's agent has not announced direct.deploy; direct deployments to it fail");
      root().err.flush();
    }
    List<JsonNode> rows = new ArrayList<>();
    d.path("applies").forEach(rows::add);
    output().print(d, rows, DIRECT_APPLIES);
  }

  static final List<Output.Column> ADAPTERS =
      List.of(
          Output.Column.of("Project", "project"),
          Output.Column.of("Environment", "environment"),
          Output.Column.of("Tenant", "tenant"),
          Output.Column.of("Adapter", "adapter"),
          Output.Column.of("Outcome", "outcome"),
          Output.Column.of("Updated", "updatedAt"),
          Output.Column.of("Message", "message"));

  @Command(
      name = "adapters",
      description = {
        "The Flux or Argo CD objects the hub keeps on the cluster for each binding, and what the"
            + " agent reported (-o json also lists the objects). --set manual leaves them to the"
            + " cluster's operators; --set auto hands them back to the hub; --rewire wires again now."
      })
  void adapters(
      @Parameters(paramLabel = "CLUSTER") String cluster,
      @Option(names = "--set", paramLabel = "auto|manual", description = "Who keeps the objects.")
          String set,
      @Option(names = "--rewire", description = "Wire the cluster's adapters again now.")
          boolean rewire) {
    HubClient hub = client();
    String id = clusterId(hub, cluster);
    if (set != null) {
      if (!set.equals("auto") && !set.equals("manual")) {
        throw new CliException(ExitCode.USAGE, "--set must be auto or manual");
      }
      hub.call(Endpoint.CLUSTERS_ADAPTERS_PUT, Map.of(), Map.of("adapter", set), Map.of(), id);
    }
    if (rewire) {
      hub.call(Endpoint.CLUSTERS_ADAPTERS_REWIRE, Map.of(), null, Map.of(), id);
      root().err.println("asked the hub to wire " + cluster + "'s adapters again");
      root().err.flush();
    }
    JsonNode a = hub.call(Endpoint.CLUSTERS_ADAPTERS_GET, id);
    if (a.path("adapter").asText().equals("manual")) {
      root()
          .err
          .println(
              "note: the adapter of " + cluster + " is manual; the hub keeps no objects there");
      root().err.flush();
    }
    List<JsonNode> rows = new ArrayList<>();
    a.path("bindings").forEach(rows::add);
    output().print(a, rows, ADAPTERS);
  }

  @Command(name = "rotate", description = "Rotate the agent's token (the agent must be connected).")
  void rotate(@Parameters(paramLabel = "CLUSTER") String cluster) {
    HubClient hub = client();
    JsonNode r =
        hub.call(Endpoint.CLUSTERS_ROTATE_TOKEN, Map.of(), null, Map.of(), clusterId(hub, cluster));
    output()
        .object(
            r,
            List.of(
                Output.Column.of("Rotation", "rotationId"),
                Output.Column.of("Workflow", "workflowId")));
  }

  @Command(
      name = "delete",
      description = "Deregister a cluster: its tokens, commands and settings are deleted.")
  void delete(@Parameters(paramLabel = "CLUSTER") String cluster) {
    HubClient hub = client();
    hub.call(Endpoint.CLUSTERS_DELETE, clusterId(hub, cluster));
    output().line("Deleted cluster " + cluster + ".");
  }

  @Command(
      name = "logs",
      description = {
        "Print a pod's log (capability diagnostics.read): the tail, then with -f new lines until"
            + " Ctrl+C. Without -f it is a download of the current log."
      })
  void logs(
      @Parameters(index = "0", paramLabel = "CLUSTER") String cluster,
      @Parameters(index = "1", paramLabel = "POD") String pod,
      @Option(
              names = {"-n", "--namespace"},
              required = true,
              description = "The pod's namespace.")
          String namespace,
      @Option(
              names = {"-c", "--container"},
              description = "The container (default: the pod's first).")
          String container,
      @Option(
              names = {"-f", "--follow"},
              description = "Keep printing new lines.")
          boolean follow,
      @Option(names = "--tail", paramLabel = "N", description = "Start with the last N lines.")
          Long tail,
      @Option(
              names = "--since",
              paramLabel = "DURATION",
              description = "Only lines newer than this: 30s, 10m, 2h.")
          String since,
      @Option(names = "--timestamps", description = "Prefix every line with its timestamp.")
          boolean timestamps,
      @Option(
              names = {"-p", "--previous"},
              description = "The previous (terminated) instance of the container.")
          boolean previous) {
    HubClient hub = client();
    Map<String, List<String>> q = new LinkedHashMap<>();
    q.put("namespace", List.of(namespace));
    q.put("pod", List.of(pod));
    if (container != null) {
      q.put("container", List.of(container));
    }
    if (tail != null) {
      q.put("tailLines", List.of(String.valueOf(tail)));
    }
    if (since != null) {
      q.put("sinceSeconds", List.of(String.valueOf(seconds(since))));
    }
    if (timestamps) {
      q.put("timestamps", List.of("true"));
    }
    if (previous) {
      q.put("previous", List.of("true"));
    }
    if (follow) {
      q.put("follow", List.of("true"));
    }
    hub.stream(Endpoint.CLUSTERS_LOGS, q, root().out, clusterId(hub, cluster));
  }

  /** {@code 45}, {@code 30s}, {@code 10m}, {@code 2h} as seconds; a usage error otherwise. */
  static long seconds(String duration) {
    Matcher m = Pattern.compile("^(\\d{1,9})([smh]?)$").matcher(duration.trim());
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new CliException(
          ExitCode.USAGE, "--since: expected a duration such as 30s, 10m or 2h, got " + duration);
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "m" -> n * 60;
      case "h" -> n * 3600;
      default -> n;
    };
  }

  private void printRegistration(JsonNode created, String headline) {
    Output out = output();
    if (!out.isTable()) {
      out.raw(created);
      return;
    }
    List<String> lines = new ArrayList<>();
    lines.add(headline);
    lines.add(
        "Registration token (shown once, expires " + created.path("expiresAt").asText() + "):");
    lines.add("  " + created.path("registrationToken").asText());
    lines.add("Install the agent with:");
    lines.add("  " + created.path("installCommand").asText());
    lines.forEach(out::line);
  }

  static void putIf(Map<String, Object> body, String key, Object value) {
    if (value != null) {
      body.put(key, value);
    }
  }

  @Command(
      name = "credentials",
      description = "The credentials synced to a cluster: per namespace, status and last sync.")
  void credentials(@Parameters(paramLabel = "CLUSTER") String cluster) {
    HubClient hub = client();
    JsonNode list = hub.call(Endpoint.CLUSTER_CREDENTIALS, clusterId(hub, cluster));
    output().print(list, items(list), CredentialsCommand.STATUS);
  }
}
