package dev.gitopshq.activities.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.drift.DesiredState;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.git.DeployTokenMapper;
import dev.gitopshq.activities.git.DeployTokenRow;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.agent.v1.AdapterBinding;
import dev.gitopshq.agent.v1.AdapterCredential;
import dev.gitopshq.agent.v1.AdapterNames;
import dev.gitopshq.agent.v1.AdaptersWired;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.agent.v1.WireAdapters;
import dev.gitopshq.agent.v1.WiredBinding;
import dev.gitopshq.workflows.adapter.AdapterWiringActivities;
import dev.gitopshq.workflows.adapter.WiringOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.ObjectId;
import org.springframework.transaction.support.TransactionOperations;

/**
 * The hub's side of wiring a cluster's runtime adapters ({@link AdapterWiringActivities}): what the
 * cluster's bindings are, which deploy tokens its adapter needs, sending them to the agent and
 * recording its answer.
 *
 * <p>The bindings come from the deploy branches: every tenant directory {@code <cluster>/<tenant>}
 * of {@code deploy/<environment>} of a project environment bound to the cluster in {@code flux} or
 * {@code argocd} mode, with the namespaces its objects name (the tenant's RBAC and AppProject cover
 * exactly those) and the Namespaces it creates.
 */
public class AdapterWirings implements AdapterWiringActivities {
  /** How long the agent may take to apply and prune a cluster's adapter objects. */
  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

  /** The most bindings one cluster gets (the protocol's bound). */
  static final int MAX_BINDINGS = 500;

  /** The most bytes of rendered files read to find a cluster's namespaces. */
  static final long MAX_BYTES = 64L * 1024 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final AdapterWiringMapper wirings;
  private final ClusterMapper clusters;
  private final OrgMapper orgs;
  private final ProjectFenceMapper fences;
  private final DeployTokenMapper deployTokens;
  private final ProjectRepos repos;
  private final AgentGatewayPort gateway;
  private final AuditLog audit;
  private final TransactionOperations tx;
  private final Clock clock;
  private final String publicUrl;
  private final int intervalSeconds;

  /**
   * @param publicUrl the hub's base URL as adapters reach it, without a trailing slash: clone URLs
   *     are {@code <publicUrl>/git/<org>/<project>.git}
   * @param intervalSeconds how often the adapters poll their branch (the hub also asks them to
   *     reconcile on each deployment commit)
   */
  public AdapterWirings(
      AdapterWiringMapper wirings,
      ClusterMapper clusters,
      OrgMapper orgs,
      ProjectFenceMapper fences,
      DeployTokenMapper deployTokens,
      ProjectRepos repos,
      AgentGatewayPort gateway,
      AuditLog audit,
      TransactionOperations tx,
      Clock clock,
      String publicUrl,
      int intervalSeconds) {
    this.wirings = wirings;
    this.clusters = clusters;
    this.orgs = orgs;
    this.fences = fences;
    this.deployTokens = deployTokens;
    this.repos = repos;
    this.gateway = gateway;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
    this.publicUrl = publicUrl;
    this.intervalSeconds = intervalSeconds;
  }

  @Override
  public WiringOutcome wireCluster(String orgId, String clusterId, String cause) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(clusterId);
    Optional<ClusterRow> found = clusters.findById(org, id);
    if (found.isEmpty()) {
      return new WiringOutcome(0, 0, 0, "the cluster is gone");
    }
    ClusterRow cluster = found.get();
    if (wirings.adapterMode(org, id).orElse("auto").equals("manual")) {
      tx.executeWithoutResult(
          s -> {
            if (wirings.clearWirings(org, id) > 0) {
              audit(
                  cluster,
                  cause,
                  "manual: the hub no longer keeps this cluster's adapter objects",
                  List.of(),
                  0,
                  0);
            }
          });
      return new WiringOutcome(0, 0, 0, "the cluster's adapter is manual");
    }
    String slug = orgs.findById(org).map(o -> o.slug()).orElseThrow();
    List<Planned> plan = plan(cluster, slug);
    if (!cluster.capabilities().contains(Capabilities.ADAPTER_WIRE)) {
      String why = "the agent does not announce the adapter.wire capability";
      record(cluster, cause, plan, null, why, List.of());
      return new WiringOutcome(0, 0, 0, why);
    }
    Map<String, AdapterTokenRow> tokens = new LinkedHashMap<>();
    for (AdapterTokenRow t : wirings.tokens(org, id)) {
      tokens.put(t.projectId() + "|" + t.adapter(), t);
    }
    List<AdapterCredential> issued = new ArrayList<>();
    Set<String> issuedSecrets = new TreeSet<>();
    for (Planned p : plan) {
      String key = p.projectId() + "|" + p.binding().getAdapter();
      AdapterTokenRow t = tokens.get(key);
      if (t == null || !live(org, t)) {
        AdapterCredential c = issue(cluster, p, t);
        tokens.put(key, row(cluster, p, c));
        issued.add(c);
        issuedSecrets.add(c.getName());
      }
    }
    AdaptersWired answer = send(cluster, plan, issued);
    if (answer.getMissingCredentialsCount() > 0) {
      // The cluster lost a Secret (deleted by hand, a new cluster behind the same name): new
      // tokens for those, and the old ones revoked.
      List<AdapterCredential> again = new ArrayList<>(issued);
      for (String secret : answer.getMissingCredentialsList()) {
        if (issuedSecrets.contains(secret)) {
          continue;
        }
        for (Planned p : plan) {
          if (p.binding().getCredential().equals(secret)
              && again.stream().noneMatch(c -> c.getName().equals(secret))) {
            AdapterTokenRow old = tokens.get(p.projectId() + "|" + p.binding().getAdapter());
            AdapterCredential c = issue(cluster, p, old);
            tokens.put(p.projectId() + "|" + p.binding().getAdapter(), row(cluster, p, c));
            again.add(c);
          }
        }
      }
      if (again.size() > issued.size()) {
        answer = send(cluster, plan, again);
      }
    }
    if (answer.getRefused() || !answer.getError().isEmpty()) {
      String why =
          answer.getError().isEmpty()
              ? "the agent refused to wire its adapters"
              : answer.getError();
      record(cluster, cause, plan, null, why, List.of());
      return new WiringOutcome(0, plan.size(), 0, why);
    }
    Set<String> wanted = new TreeSet<>();
    for (Planned p : plan) {
      wanted.add(p.projectId() + "|" + p.binding().getAdapter());
    }
    List<AdapterTokenRow> stale =
        tokens.values().stream()
            .filter(t -> !wanted.contains(t.projectId() + "|" + t.adapter()))
            .toList();
    record(cluster, cause, plan, answer, null, stale);
    int wired =
        (int) answer.getBindingsList().stream().filter(b -> b.getOutcome().equals("wired")).count();
    // Objects kept while a Kustomization or Application finishes deleting count as unfinished:
    // the workflow wires again after its backoff to remove them.
    return new WiringOutcome(
        wired,
        answer.getBindingsCount() - wired + (answer.getDeferredCount() > 0 ? 1 : 0),
        answer.getRemovedCount(),
        "");
  }

  /** A binding to send, with the project's id. */
  record Planned(UUID projectId, AdapterBinding binding) {}

  /** Every tenant directory of every deploy branch bound to the cluster through an adapter. */
  List<Planned> plan(ClusterRow cluster, String slug) {
    List<Planned> out = new ArrayList<>();
    long[] budget = {MAX_BYTES};
    for (AdapterBindingRow b : wirings.bindings(cluster.orgId(), cluster.id())) {
      String branch = ProjectRepos.deployBranch(b.environment());
      Optional<ObjectId> head;
      try {
        head = repos.head(cluster.orgId(), b.projectId(), branch);
      } catch (RuntimeException e) {
        head = Optional.empty(); // no repository yet: nothing delivered, nothing to wire
      }
      if (head.isEmpty()) {
        continue;
      }
      SortedMap<String, byte[]> files =
          repos.readFiles(cluster.orgId(), b.projectId(), head.get(), cluster.name());
      Map<String, Set<String>[]> tenants = new TreeMap<>();
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        int slash = f.getKey().indexOf('/');
        if (slash <= 0) {
          continue;
        }
        @SuppressWarnings("unchecked")
        Set<String>[] ns =
            tenants.computeIfAbsent(
                f.getKey().substring(0, slash),
                t -> new Set[] {new TreeSet<String>(), new TreeSet<String>()});
        budget[0] -= f.getValue().length;
        if (budget[0] < 0) {
          throw new IllegalStateException(
              "the deploy branches of cluster "
                  + cluster.name()
                  + " hold more than "
                  + MAX_BYTES / (1024 * 1024)
                  + " MiB; refusing to read more to wire its adapter");
        }
        namespaces(f.getValue(), ns[0], ns[1]);
      }
      var fence =
          fences
              .find(cluster.orgId(), b.projectId())
              .map(ProjectFenceRow::toProto)
              .orElse(TenantFences.DEFAULT);
      String repo = publicUrl + "/git/" + slug + "/" + b.project() + ".git";
      for (Map.Entry<String, Set<String>[]> t : tenants.entrySet()) {
        if (out.size() >= MAX_BINDINGS) {
          throw new IllegalStateException(
              "cluster " + cluster.name() + " has more than " + MAX_BINDINGS + " adapter bindings");
        }
        Set<String> namespaces = new TreeSet<>(t.getValue()[0]);
        namespaces.addAll(t.getValue()[1]);
        out.add(
            new Planned(
                b.projectId(),
                AdapterBinding.newBuilder()
                    .setAdapter(b.mode())
                    .setProject(b.project())
                    .setEnvironment(b.environment())
                    .setTenant(t.getKey())
                    .setRepoUrl(repo)
                    .setBranch(branch)
                    .setPath(cluster.name() + "/" + t.getKey())
                    .addAllNamespaces(namespaces)
                    .addAllCreatedNamespaces(t.getValue()[1])
                    .setFence(fence)
                    .setCredential(AdapterNames.credential(b.project(), b.mode()))
                    .setIntervalSeconds(intervalSeconds)
                    .build()));
      }
    }
    return out;
  }

  /** Adds the namespaces a rendered file's objects name, and those its Namespace objects create. */
  static void namespaces(byte[] file, Set<String> named, Set<String> created) {
    if (file.length > DesiredState.MAX_FILE_BYTES) {
      return;
    }
    try {
      for (JsonNode doc : DesiredState.documents(new String(file, StandardCharsets.UTF_8))) {
        String ns = doc.path("metadata").path("namespace").asText("");
        if (!ns.isEmpty()) {
          named.add(ns);
        }
        if (doc.path("kind").asText("").equals("Namespace")
            && doc.path("apiVersion").asText("").equals("v1")
            && !doc.path("metadata").path("name").asText("").isEmpty()) {
          created.add(doc.path("metadata").path("name").asText());
        }
      }
    } catch (IOException e) {
      // Not YAML the adapter could apply either; the adapter reports it, not the wiring.
    }
  }

  private boolean live(UUID org, AdapterTokenRow t) {
    Instant now = clock.instant();
    return deployTokens
        .find(org, t.projectId(), t.tokenId())
        .filter(d -> d.revokedAt() == null)
        .filter(d -> d.expiresAt() == null || d.expiresAt().isAfter(now))
        .isPresent();
  }

  /** Issues a deploy token for the cluster's adapter (revoking {@code old}); audited. */
  private AdapterCredential issue(ClusterRow cluster, Planned p, AdapterTokenRow old) {
    Tokens.IssuedToken token = Tokens.issue(TokenKind.DEPLOY);
    Instant now = clock.instant();
    String adapter = p.binding().getAdapter();
    DeployTokenRow row =
        new DeployTokenRow(
            UUID.randomUUID(),
            cluster.orgId(),
            p.projectId(),
            "adapter " + adapter + " of cluster " + cluster.name(),
            token.hash(),
            "gitopshq-adapter-wiring",
            now,
            null,
            null,
            null);
    AdapterCredential credential =
        AdapterCredential.newBuilder()
            .setAdapter(adapter)
            .setName(p.binding().getCredential())
            .setProject(p.binding().getProject())
            .setRepoUrl(p.binding().getRepoUrl())
            .setUsername(adapter)
            .setPassword(token.value())
            .setTokenId(row.id().toString())
            .build();
    tx.executeWithoutResult(
        s -> {
          deployTokens.insert(row);
          wirings.putToken(row(cluster, p, credential));
          if (old != null) {
            deployTokens.revoke(cluster.orgId(), old.projectId(), old.tokenId(), now);
          }
          Map<String, Object> details = new LinkedHashMap<>();
          details.put("projectId", p.projectId().toString());
          details.put("project", p.binding().getProject());
          details.put("tokenId", row.id().toString());
          details.put("name", row.name());
          details.put("cluster", cluster.name());
          details.put("replaces", old == null ? null : old.tokenId().toString());
          audit.record(
              cluster.orgId(),
              Actor.system("adapter-wiring"),
              "deploy_token.issued",
              "deploy_token",
              row.id().toString(),
              details);
        });
    return credential;
  }

  private static AdapterTokenRow row(ClusterRow cluster, Planned p, AdapterCredential c) {
    return new AdapterTokenRow(
        cluster.orgId(),
        cluster.id(),
        p.projectId(),
        c.getAdapter(),
        UUID.fromString(c.getTokenId()),
        c.getName());
  }

  private AdaptersWired send(
      ClusterRow cluster, List<Planned> plan, List<AdapterCredential> credentials) {
    WireAdapters request =
        WireAdapters.newBuilder()
            .setRequestId(UUID.randomUUID().toString())
            .addAllBindings(plan.stream().map(Planned::binding).toList())
            .addAllCredentials(credentials)
            .build();
    Optional<CompletableFuture<AdaptersWired>> answer =
        gateway.wireAdapters(cluster.orgId(), cluster.id(), request, ANSWER_TIMEOUT);
    if (answer.isEmpty()) {
      throw new IllegalStateException(
          "no hub replica holds a stream of cluster " + cluster.name() + "; retried");
    }
    try {
      return answer.get().get(ANSWER_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while wiring " + cluster.name());
    } catch (Exception e) {
      throw new IllegalStateException(
          "the agent of " + cluster.name() + " did not answer the wiring in time; retried");
    }
  }

  /**
   * Replaces the cluster's wiring rows with this round's, drops the tokens no binding needs, and
   * audits when anything changed.
   *
   * @param answer the agent's answer; null when nothing was sent ({@code why} says why)
   */
  private void record(
      ClusterRow cluster,
      String cause,
      List<Planned> plan,
      AdaptersWired answer,
      String why,
      List<AdapterTokenRow> stale) {
    Instant now = clock.instant();
    List<AdapterWiringRow> rows = new ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      Planned p = plan.get(i);
      WiredBinding w =
          answer != null && i < answer.getBindingsCount() ? answer.getBindings(i) : null;
      rows.add(
          new AdapterWiringRow(
              cluster.orgId(),
              cluster.id(),
              p.projectId(),
              p.binding().getProject(),
              p.binding().getEnvironment(),
              p.binding().getTenant(),
              p.binding().getAdapter(),
              w == null ? "pending" : w.getOutcome().equals("wired") ? "wired" : "failed",
              w == null ? why : w.getMessage(),
              w == null ? "[]" : objects(w.getObjectsList()),
              now));
    }
    List<AdapterWiringRow> before = wirings.wirings(cluster.orgId(), cluster.id());
    boolean changed =
        !summary(before).equals(summary(rows))
            || !stale.isEmpty()
            || answer != null && answer.getRemovedCount() > 0;
    tx.executeWithoutResult(
        s -> {
          wirings.clearWirings(cluster.orgId(), cluster.id());
          rows.forEach(wirings::insertWiring);
          for (AdapterTokenRow t : stale) {
            deployTokens.revoke(cluster.orgId(), t.projectId(), t.tokenId(), now);
            wirings.deleteToken(cluster.orgId(), cluster.id(), t.projectId(), t.adapter());
          }
          if (changed) {
            audit(
                cluster,
                cause,
                why,
                rows,
                answer == null ? 0 : answer.getRemovedCount(),
                stale.size());
          }
        });
  }

  private static List<String> summary(List<AdapterWiringRow> rows) {
    return rows.stream()
        .map(
            r ->
                r.projectId()
                    + "|"
                    + r.environment()
                    + "|"
                    + r.tenant()
                    + "|"
                    + r.adapter()
                    + "|"
                    + r.outcome()
                    + "|"
                    + r.message())
        .sorted()
        .toList();
  }

  private void audit(
      ClusterRow cluster,
      String cause,
      String why,
      List<AdapterWiringRow> rows,
      int removed,
      int tokensRevoked) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("cluster", cluster.name());
    details.put("cause", cause);
    if (why != null) {
      details.put("reason", why);
    }
    List<Map<String, String>> bindings = new ArrayList<>();
    for (AdapterWiringRow r : rows) {
      Map<String, String> b = new LinkedHashMap<>();
      b.put("project", r.project());
      b.put("environment", r.environment());
      b.put("tenant", r.tenant());
      b.put("adapter", r.adapter());
      b.put("outcome", r.outcome());
      bindings.add(b);
    }
    details.put("bindings", bindings);
    details.put("removedObjects", removed);
    details.put("tokensRevoked", tokensRevoked);
    audit.record(
        cluster.orgId(),
        Actor.system("adapter-wiring"),
        "cluster.adapters_wired",
        "cluster",
        cluster.id().toString(),
        details);
  }

  private static String objects(List<AppliedObject> objects) {
    List<Map<String, String>> out = new ArrayList<>();
    for (AppliedObject o : objects) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("apiVersion", o.getApiVersion());
      m.put("kind", o.getKind());
      m.put("namespace", o.getNamespace());
      m.put("name", o.getName());
      out.add(m);
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
