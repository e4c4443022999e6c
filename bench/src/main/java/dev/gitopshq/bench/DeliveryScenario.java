package dev.gitopshq.bench;

import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * The delivery benchmark's project: environments x tenants x workloads, one cluster per
 * environment, every workload on the same chart, with values that differ per workload, tenant,
 * environment and cluster the way a platform team's do (replicas, hosts, autoscaling and
 * disruption budgets in the upper environments, per-tenant configuration and database URLs).
 * Image repositories, hosts and database URLs use HQ variables ({@code ${registry}}, {@code
 * ${team}} for the organization and project, {@code ${domain}} per environment, {@code
 * ${customer}} per tenant), so planning substitutes in every unit.
 */
final class DeliveryScenario {
  static final UUID ORG = UUID.nameUUIDFromBytes("gitopshq-bench-org".getBytes(StandardCharsets.UTF_8));
  static final UUID PROJECT = UUID.nameUUIDFromBytes("gitopshq-bench-project".getBytes(StandardCharsets.UTF_8));
  /** A second repository the warm-up commits to. */
  static final UUID WARMUP_PROJECT = UUID.nameUUIDFromBytes("gitopshq-bench-warmup".getBytes(StandardCharsets.UTF_8));

  private static final List<String> ENVIRONMENTS = List.of("dev", "qa", "staging", "preprod", "production");
  private static final List<String> TENANTS =
      List.of(
          "acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell",
          "cyberdyne", "soylent", "aperture", "blackmesa", "oscorp", "piedpiper", "vandelay",
          "monarch", "gringotts", "duff", "nakatomi");
  private static final List<String> WORKLOADS =
      List.of("web", "api", "worker", "billing", "search", "auth", "notify", "reports", "gateway", "media");
  /** Workloads reachable from outside: they get an Ingress. */
  private static final List<String> PUBLIC = List.of("web", "api", "gateway");

  private DeliveryScenario() {}

  /** The repository of the generation phase: a full generation, then the incremental ones. */
  static final UUID GENERATION_PROJECT = uuid("gitopshq-bench-generation");

  /** The repository a full generation of the last changed configuration is made in, to compare. */
  static final UUID GENERATION_REFERENCE_PROJECT = uuid("gitopshq-bench-generation-reference");

  /**
   * {@code snapshot} with one value of one unit changed: {@code env.MAX_CONNECTIONS} of the first
   * workload for the first tenant in the last environment (one cluster: one unit) becomes {@code
   * connections}. (Not {@code replicaCount}: with autoscaling on, the chart does not print it.)
   */
  @SuppressWarnings("unchecked")
  static ProjectSnapshot withMaxConnections(ProjectSnapshot snapshot, int connections) {
    String env = snapshot.environments().getLast().name();
    String workload = snapshot.workloads().getFirst().name();
    String tenant = snapshot.tenants().getFirst();
    List<TenantValues> values = new ArrayList<>();
    boolean found = false;
    for (TenantValues v : snapshot.values()) {
      if (v.workload().equals(workload) && v.tenant().equals(tenant) && v.environment().equals(env)) {
        Map<String, Object> changed = new LinkedHashMap<>(v.values());
        Map<String, Object> env2 = new LinkedHashMap<>((Map<String, Object>) changed.get("env"));
        env2.put("MAX_CONNECTIONS", connections);
        changed.put("env", env2);
        values.add(new TenantValues(workload, tenant, env, changed));
        found = true;
      } else {
        values.add(v);
      }
    }
    if (!found) {
      throw new IllegalStateException("no values for " + workload + "/" + tenant + "/" + env);
    }
    return new ProjectSnapshot(
        snapshot.orgId(), snapshot.projectId(), snapshot.project(), snapshot.revision() + 1,
        snapshot.environments(), snapshot.tenants(), snapshot.workloads(), values,
        snapshot.variables(), snapshot.bindings());
  }

  /** The repository of one round of the store comparison (each round starts empty). */
  static UUID roundProject(int round) {
    return UUID.nameUUIDFromBytes(("gitopshq-bench-round-" + round).getBytes(StandardCharsets.UTF_8));
  }

  /** The chart as Helm packages it: a gzipped tar with every file under {@code <chart name>/}. */
  record Chart(String name, String version, byte[] archive, String digest) {}

  /**
   * Packs a chart directory into a {@code .tgz} in memory, deterministically (sorted entries, fixed
   * times), so the digest is the same on every run.
   */
  static Chart pack(Path dir) {
    Path chartYaml = dir.resolve("Chart.yaml");
    if (!Files.isRegularFile(chartYaml)) {
      throw new IllegalArgumentException("--chart: no Chart.yaml in " + dir);
    }
    String name = chartField(chartYaml, "name");
    String version = chartField(chartYaml, "version");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes);
        Stream<Path> walk = Files.walk(dir)) {
      for (Path file : walk.filter(Files::isRegularFile).sorted().toList()) {
        String entry = name + "/" + dir.relativize(file).toString().replace('\\', '/');
        byte[] content = Files.readAllBytes(file);
        gz.write(tarHeader(entry, content.length));
        gz.write(content);
        gz.write(new byte[(512 - content.length % 512) % 512]);
      }
      gz.write(new byte[1024]); // two zero blocks end the archive
    } catch (IOException e) {
      throw new UncheckedIOException("cannot pack the chart in " + dir, e);
    }
    byte[] archive = bytes.toByteArray();
    return new Chart(name, version, archive, sha256(archive));
  }

  /** A POSIX ustar header for a regular file (mode 0644, owner 0, time 0). */
  private static byte[] tarHeader(String path, long size) {
    byte[] name = path.getBytes(StandardCharsets.UTF_8);
    if (name.length > 100) {
      throw new IllegalArgumentException("chart path too long for the benchmark's tar writer: " + path);
    }
    byte[] h = new byte[512];
    System.arraycopy(name, 0, h, 0, name.length);
    octal(h, 100, 8, 0644);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, size);
    octal(h, 136, 12, 0);
    h[156] = '0';
    byte[] magic = "ustar\00000".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(magic, 0, h, 257, magic.length);
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    return h;
  }

  private static void octal(byte[] h, int offset, int length, long value) {
    String s = String.format("%0" + (length - 1) + "o", value);
    byte[] b = s.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(b, 0, h, offset, b.length);
    h[offset + length - 1] = 0;
  }

  private static String chartField(Path chartYaml, String key) {
    try {
      for (String line : Files.readAllLines(chartYaml)) {
        if (line.startsWith(key + ":")) {
          return line.substring(key.length() + 1).trim().replace("\"", "");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalArgumentException(chartYaml + " has no " + key);
  }

  static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The project: {@code environments x tenants x workloads} units, one cluster per environment. */
  static ProjectSnapshot snapshot(int environments, int tenants, int workloads, Chart chart) {
    List<String> envs = names(ENVIRONMENTS, "env", environments);
    List<String> tens = names(TENANTS, "tenant", tenants);
    List<String> works = names(WORKLOADS, "service", workloads);

    List<Environment> envList = new ArrayList<>();
    for (int i = 0; i < envs.size(); i++) {
      String env = envs.get(i);
      String cluster = env + "-eu-1";
      envList.add(
          new Environment(
              env, i, "{{ .tenant }}-{{ .environment }}",
              List.of(
                  new ClusterTarget(
                      cluster, uuid("cluster-" + cluster),
                      map("nodeSelector", map("gitopshq.dev/pool", env, "topology.kubernetes.io/region", "eu-1"))))));
    }

    List<Workload> workloadList = new ArrayList<>();
    for (int w = 0; w < works.size(); w++) {
      String name = works.get(w);
      workloadList.add(
          new Workload(
              name, chart.name(), chart.version(), chart.digest(),
              map(
                  "image", map("repository", "${registry}/${team}/" + name, "tag", "1." + (w + 4) + ".2"),
                  "service", map("port", 80, "targetPort", 8080 + w),
                  "resources", map(
                      "requests", map("cpu", (100 + 50 * (w % 4)) + "m", "memory", (128 << (w % 3)) + "Mi"),
                      "limits", map("memory", (256 << (w % 3)) + "Mi")),
                  "config", map("SERVICE_NAME", name, "LOG_FORMAT", "json", "LOG_LEVEL", "info"),
                  "probes", map("path", w % 2 == 0 ? "/healthz" : "/ready")),
              "image.tag"));
    }

    List<TenantValues> values = new ArrayList<>();
    for (String work : works) {
      for (int t = 0; t < tens.size(); t++) {
        String tenant = tens.get(t);
        for (int e = 0; e < envs.size(); e++) {
          values.add(new TenantValues(work, tenant, envs.get(e), tenantValues(work, tenant, t, envs.get(e), e, envs.size())));
        }
      }
    }

    List<Variable> variables = new ArrayList<>();
    variables.add(new Variable("org", null, null, null, "registry", "registry.example.com"));
    variables.add(new Variable("project", null, null, null, "team", "shop"));
    for (String env : envs) {
      variables.add(new Variable("environment", env, null, null, "domain", env + ".example.com"));
    }
    for (String tenant : tens) {
      variables.add(new Variable("tenant", null, tenant, null, "customer", tenant));
    }
    return new ProjectSnapshot(ORG, PROJECT, "shop", 1, envList, tens, workloadList, values, variables, List.of());
  }

  private static Map<String, Object> tenantValues(
      String work, String tenant, int tenantIndex, String env, int envIndex, int envCount) {
    boolean top = envIndex == envCount - 1; // production
    boolean upper = envIndex >= envCount - 2; // preprod and production
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("replicaCount", top ? 3 : upper ? 2 : 1);
    v.put("podAnnotations", map("gitopshq.dev/tenant", tenant, "gitopshq.dev/environment", env));
    v.put("env", map(
        "TENANT", tenant,
        "ENVIRONMENT", env,
        "FEATURE_NEW_CHECKOUT", tenantIndex % 3 == 0,
        "MAX_CONNECTIONS", 20 + 5 * (tenantIndex % 7)));
    v.put("config", map(
        "DATABASE_URL", "postgres://db.${domain}:5432/${customer}_" + work,
        "CACHE_TTL_SECONDS", String.valueOf(60 * (1 + tenantIndex % 5)),
        "LOG_LEVEL", upper ? "info" : "debug"));
    if (PUBLIC.contains(work)) {
      v.put("ingress", map("enabled", true, "host", work + ".${customer}.${domain}", "tls", upper));
    }
    if (top && (work.equals("web") || work.equals("api"))) {
      v.put("autoscaling", map("enabled", true, "minReplicas", 3, "maxReplicas", 12 + tenantIndex % 4));
    }
    if (upper) {
      v.put("podDisruptionBudget", map("enabled", true, "minAvailable", 1));
    }
    return v;
  }

  /** The first {@code count} of {@code known}, then {@code <prefix>-<n>}. */
  private static List<String> names(List<String> known, String prefix, int count) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(i < known.size() ? known.get(i) : prefix + "-" + (i + 1));
    }
    return out;
  }

  private static UUID uuid(String seed) {
    return UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8));
  }

  /** An ordered map from alternating keys and values. */
  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
