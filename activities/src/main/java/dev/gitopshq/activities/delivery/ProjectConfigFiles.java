package dev.gitopshq.activities.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Binding;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Target;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Serializes a {@link ProjectSnapshot} into the files under {@code config/} of the project's
 * repository: what people read in the history of every change. The output is deterministic: map
 * keys are sorted, lists are in a fixed order, and nothing volatile (revision, timestamps, ids) is
 * written, so the same configuration always yields the same bytes and an unchanged configuration
 * makes no commit.
 *
 * <pre>
 * config/project.yaml
 * config/environments/&lt;env&gt;.yaml         position, namespacePattern, clusters [{name, overrides, deliveryMode unless argocd,
 *                                        boundBy when a selector binds it}], clusterSelector, selectorDeliveryMode
 * config/tenants.yaml
 * config/workloads/&lt;name&gt;.yaml           chart, version, digest, imageTagPath, values
 * config/values/&lt;env&gt;/&lt;tenant&gt;/&lt;workload&gt;.yaml
 * config/variables.yaml                  sorted by scope (org .. service), then key
 * config/bindings/&lt;name&gt;.yaml            kind, source, sourceRevision, sha256, targets, overlays, kindScopes
 * config/fence.yaml                      allowedNamespaces, clusterScopedKinds, deniedKinds (only when not the default)
 * </pre>
 *
 * <p>What was added later is written only when it is not the default ({@code deliveryMode}, {@code
 * createNamespace}, {@code kindScopes}, the fence), so configurations from before keep their bytes.
 */
public final class ProjectConfigFiles {
  /** The directory of the repository the configuration lives in. */
  public static final String DIR = "config";

  /** The layout's version, written into project.yaml. */
  public static final int FORMAT = 1;

  /** Scope order: the precedence of HQ variables, lowest first. */
  public static final List<String> SCOPES =
      List.of("org", "project", "environment", "tenant", "service");

  private static final ObjectMapper YAML =
      new ObjectMapper(
              YAMLFactory.builder()
                  .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                  .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                  .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                  .disable(YAMLGenerator.Feature.SPLIT_LINES)
                  .build())
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private ProjectConfigFiles() {}

  /**
   * The files, by path relative to the repository root (every path starts with {@code config/}).
   */
  public static SortedMap<String, byte[]> files(ProjectSnapshot s) {
    SortedMap<String, byte[]> out = new TreeMap<>();

    Map<String, Object> project = new TreeMap<>();
    project.put("name", s.project());
    project.put("format", FORMAT);
    project.put("environments", s.environments().stream().map(Environment::name).toList());
    project.put("workloads", s.workloads().stream().map(Workload::name).sorted().toList());
    project.put("bindings", s.bindings().stream().map(Binding::name).sorted().toList());
    out.put(DIR + "/project.yaml", yaml(project));

    for (Environment e : s.environments()) {
      Map<String, Object> env = new TreeMap<>();
      env.put("name", e.name());
      env.put("position", e.position());
      env.put("namespacePattern", e.namespacePattern());
      List<Map<String, Object>> clusters = new ArrayList<>();
      for (ClusterTarget c :
          e.clusters().stream().sorted(Comparator.comparing(ClusterTarget::name)).toList()) {
        Map<String, Object> cluster = new TreeMap<>();
        cluster.put("name", c.name());
        cluster.put("overrides", c.overrides() == null ? Map.of() : c.overrides());
        // Only when not the default, so configurations from before delivery modes keep their bytes.
        if (c.deliveryMode() != null && !c.deliveryMode().equals(ClusterTarget.MODES.get(0))) {
          cluster.put("deliveryMode", c.deliveryMode());
        }
        // Only when the selector binds it, so configurations from before selectors keep their
        // bytes.
        if (c.bySelector()) {
          cluster.put("boundBy", c.byName() ? List.of("name", "selector") : List.of("selector"));
        }
        clusters.add(cluster);
      }
      env.put("clusters", clusters);
      if (e.createNamespace()) {
        env.put("createNamespace", true);
      }
      if (e.clusterSelector() != null) {
        env.put("clusterSelector", selector(e.clusterSelector()));
        if (!e.selectorDeliveryMode().equals(ClusterTarget.MODES.get(0))) {
          env.put("selectorDeliveryMode", e.selectorDeliveryMode());
        }
      }
      out.put(DIR + "/environments/" + e.name() + ".yaml", yaml(env));
    }

    out.put(DIR + "/tenants.yaml", yaml(Map.of("tenants", s.tenants().stream().sorted().toList())));

    for (Workload w : s.workloads()) {
      Map<String, Object> workload = new TreeMap<>();
      workload.put("name", w.name());
      workload.put("chart", w.chart());
      workload.put("version", w.chartVersion());
      workload.put("digest", w.chartDigest());
      workload.put("imageTagPath", w.imageTagPath());
      workload.put("values", w.values() == null ? Map.of() : w.values());
      if (!w.kindScopes().isEmpty()) {
        workload.put("kindScopes", w.kindScopes());
      }
      out.put(DIR + "/workloads/" + w.name() + ".yaml", yaml(workload));
    }

    for (TenantValues v : s.values()) {
      out.put(
          DIR + "/values/" + v.environment() + "/" + v.tenant() + "/" + v.workload() + ".yaml",
          yaml(v.values() == null ? Map.of() : v.values()));
    }

    List<Map<String, Object>> variables = new ArrayList<>();
    for (Variable v : s.variables().stream().sorted(VARIABLE_ORDER).toList()) {
      Map<String, Object> m = new TreeMap<>();
      m.put("scope", v.scope());
      if (v.environment() != null) {
        m.put("environment", v.environment());
      }
      if (v.tenant() != null) {
        m.put("tenant", v.tenant());
      }
      if (v.service() != null) {
        m.put("service", v.service());
      }
      m.put("key", v.key());
      m.put("value", v.value());
      variables.add(m);
    }
    out.put(DIR + "/variables.yaml", yaml(Map.of("variables", variables)));

    for (Binding b : s.bindings()) {
      Map<String, Object> binding = new TreeMap<>();
      binding.put("name", b.name());
      binding.put("kind", b.kind());
      binding.put("source", b.source());
      binding.put("sourceRevision", b.sourceRevision());
      binding.put("sha256", filesDigest(b.files()));
      List<Map<String, Object>> targets = new ArrayList<>();
      for (Target t :
          b.targets().stream()
              .sorted(Comparator.comparing(Target::environment).thenComparing(Target::tenant))
              .toList()) {
        Map<String, Object> m = new TreeMap<>();
        m.put("environment", t.environment());
        m.put("tenant", t.tenant());
        targets.add(m);
      }
      binding.put("targets", targets);
      List<Map<String, Object>> overlays = new ArrayList<>();
      for (Overlay o : b.overlays()) {
        Map<String, Object> m = new TreeMap<>();
        m.put("kind", o.kind());
        if (o.name() != null && !o.name().isEmpty()) {
          m.put("name", o.name());
        }
        m.put("patch", o.patch() == null ? Map.of() : o.patch());
        overlays.add(m);
      }
      binding.put("overlays", overlays);
      if (!b.kindScopes().isEmpty()) {
        binding.put("kindScopes", b.kindScopes());
      }
      out.put(DIR + "/bindings/" + b.name() + ".yaml", yaml(binding));
    }
    if (!s.fence().isDefault()) {
      Map<String, Object> fence = new TreeMap<>();
      fence.put("allowedNamespaces", s.fence().allowedNamespaces());
      fence.put("clusterScopedKinds", s.fence().clusterScopedKinds());
      fence.put("deniedKinds", s.fence().deniedKinds());
      out.put(DIR + "/fence.yaml", yaml(fence));
    }
    return out;
  }

  /** Variables in scope order, then key, then what they are scoped to. */
  public static final Comparator<Variable> VARIABLE_ORDER =
      Comparator.<Variable>comparingInt(v -> SCOPES.indexOf(v.scope()))
          .thenComparing(Variable::key)
          .thenComparing(v -> nz(v.environment()))
          .thenComparing(v -> nz(v.tenant()))
          .thenComparing(v -> nz(v.service()));

  /**
   * SHA-256 over a source's files, in path order, each as its length-prefixed path and content:
   * equal file sets, and only those, have equal digests.
   */
  public static String filesDigest(Map<String, String> files) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, String> f : new TreeMap<>(files).entrySet()) {
        for (String part : new String[] {f.getKey(), f.getValue()}) {
          byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
          sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
          sha.update(bytes);
        }
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** A label selector as Kubernetes writes one; empty parts are left out. */
  private static Map<String, Object> selector(LabelSelector s) {
    Map<String, Object> out = new TreeMap<>();
    LabelSelector c = s.canonical();
    if (!c.matchLabels().isEmpty()) {
      out.put("matchLabels", c.matchLabels());
    }
    if (!c.matchExpressions().isEmpty()) {
      List<Map<String, Object>> expressions = new ArrayList<>();
      for (LabelSelector.Requirement r : c.matchExpressions()) {
        Map<String, Object> m = new TreeMap<>();
        m.put("key", r.key());
        m.put("operator", r.operator());
        if (!r.values().isEmpty()) {
          m.put("values", r.values());
        }
        expressions.add(m);
      }
      out.put("matchExpressions", expressions);
    }
    return out;
  }

  private static byte[] yaml(Object value) {
    try {
      return YAML.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("configuration is not serializable", e);
    }
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }
}
