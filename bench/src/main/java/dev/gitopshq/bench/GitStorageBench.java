package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.FileRepoStore;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;
import com.zaxxer.hikari.HikariDataSource;

/**
 * Issue 28: the hosted repositories on the file storage and in PostgreSQL, measured the same way in
 * one run. For each backend (the run script restarts the hub with {@code GITOPSHQ_GIT_STORAGE} set
 * to it) and each round, a fresh project is made through the hub's REST API, then:
 *
 * <ol>
 *   <li><b>commit of N units</b>: the rendered manifests of N units (4 files each) written as
 *       trees, a pack per batch of 25, and committed on {@code main} in one commit of {@code
 *       PutTree} edits, as delivery generation does ({@link ProjectRepos} in this JVM, on the same
 *       storage as the hub: the same directory, or the same database);
 *   <li><b>incremental commit</b>: one unit's deployment changes (one tree, one commit);
 *   <li><b>clone</b>: {@code git clone --no-checkout} over the hub's Git HTTP endpoint (the real
 *       hub jar: Tomcat, the token check, JGit's upload-pack on the storage);
 *   <li><b>fetch</b>: one more one-unit commit, then {@code git fetch} in that clone.
 * </ol>
 *
 * Then the repository's size: its directory on disk (file), or its pack bytes in PostgreSQL.
 * {@code --mode report} combines the two backends' parts into the result with medians and ratios.
 */
public final class GitStorageBench {
  private static final String USAGE =
      """
      usage: GitStorageBench --storage file|postgres --hub URL --part FILE [--rounds 3] [--warmup 1]
                             [--units 1000] [--git-root DIR] [--db-url JDBC] [--work-dir DIR]
             GitStorageBench --mode report --file FILE --postgres FILE --out FILE
        env: BENCH_HUB_TOKEN (the owner's API token), BENCH_DB_USER, BENCH_DB_PASSWORD""";

  /** As the render activity: one writeTrees (one pack) per batch of this many units. */
  private static final int BATCH = 25;

  private static final String[] STEPS = {"commitAll", "commitOne", "clone", "fetch"};

  private GitStorageBench() {}

  public static void main(String[] argv) {
    Args.main(
        argv,
        USAGE,
        args -> {
          if (args.get("mode", "measure").equals("report")) {
            report(args);
          } else {
            measure(args);
          }
        });
  }

  // ---- one backend ---------------------------------------------------------------------------

  private static void measure(Args args) {
    String storage = args.required("storage");
    String hub = args.required("hub");
    Path part = Path.of(args.required("part"));
    int rounds = args.intValue("rounds", 3, 1);
    int warmup = args.intValue("warmup", 1, 0);
    int units = args.intValue("units", 1000, 1);
    Path work = Path.of(args.get("work-dir", "bench/target/git-storage"));
    String token = System.getenv("BENCH_HUB_TOKEN");
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("BENCH_HUB_TOKEN is not set");
    }
    Path gitRoot = Path.of(args.get("git-root", work.resolve("repos").toString()));
    String dbUrl = args.required("db-url");
    args.rejectUnknown();
    HikariDataSource db = new HikariDataSource();
    db.setJdbcUrl(dbUrl);
    db.setMaximumPoolSize(4);
    db.setUsername(System.getenv().getOrDefault("BENCH_DB_USER", "gitopshq"));
    db.setPassword(System.getenv().getOrDefault("BENCH_DB_PASSWORD", "gitopshq"));

    Map<String, List<Double>> samples = new LinkedHashMap<>();
    for (String s : STEPS) {
      samples.put(s, new ArrayList<>());
    }
    List<Long> sizes = new ArrayList<>();
    List<Map<String, Object>> detail = new ArrayList<>();
    Map<String, Object> tables = new LinkedHashMap<>();
    try (db;
        JsonHttp api = new JsonHttp(hub, token);
        ProjectRepos repos = open(storage, gitRoot, db)) {
      UUID org = orgId(api);
      for (int round = 1 - warmup; round <= rounds; round++) {
        String name = "bench-" + storage + "-" + round + "-" + UUID.randomUUID().toString().substring(0, 6);
        JsonNode created =
            api.post("/api/v2/projects", Map.of("name", name)).expect(201, "POST /api/v2/projects");
        UUID project = UUID.fromString(created.path("id").asText());
        String cloneUrl = created.path("repository").path("cloneUrl").asText();
        awaitGenerated(api, project);

        Units u = new Units(units);
        long t = System.nanoTime();
        CommitResult all = commitUnits(repos, org, project, u, u.all(), "Delivery of " + units + " units");
        double commitAll = (System.nanoTime() - t) / 1e6;
        if (!all.changed()) {
          throw new IllegalStateException("the commit of " + units + " units changed nothing");
        }

        u.bump(units / 2);
        t = System.nanoTime();
        commitUnits(repos, org, project, u, List.of(units / 2), "Delivery of 1 unit");
        double commitOne = (System.nanoTime() - t) / 1e6;

        Path into = work.resolve("clone-" + storage + "-" + round);
        deleteTree(into);
        t = System.nanoTime();
        git(token, work, "clone", "--quiet", "--no-checkout", cloneUrl, into.toString());
        double clone = (System.nanoTime() - t) / 1e6;
        String cloned = git(token, into, "rev-parse", "refs/remotes/origin/main").trim();
        ObjectId head = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
        if (!cloned.equals(head.name())) {
          throw new IllegalStateException("the clone's main is " + cloned + ", the store's " + head.name());
        }

        u.bump(units / 3);
        CommitResult last =
            commitUnits(repos, org, project, u, List.of(units / 3), "Delivery of 1 unit");
        t = System.nanoTime();
        git(token, into, "fetch", "--quiet", "origin");
        double fetch = (System.nanoTime() - t) / 1e6;
        String fetched = git(token, into, "rev-parse", "refs/remotes/origin/main").trim();
        if (!fetched.equals(last.commit().name())) {
          throw new IllegalStateException("the fetch brought " + fetched + ", not " + last.commit().name());
        }

        if (round < 1) {
          System.out.printf(
              Locale.ROOT, "%s warm-up: commit of %d units %s ms, clone %s ms (not counted)%n",
              storage, units, Table.ms(commitAll), Table.ms(clone));
          deleteTree(into);
          continue;
        }
        long bytes = storage.equals("postgres") ? pgBytes(db, org, project) : dirBytes(gitRoot.resolve(org.toString()).resolve(project + ".git"));
        samples.get("commitAll").add(commitAll);
        samples.get("commitOne").add(commitOne);
        samples.get("clone").add(clone);
        samples.get("fetch").add(fetch);
        sizes.add(bytes);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("round", round);
        d.put("project", project.toString());
        d.put("commitAllMs", Stats.round(commitAll));
        d.put("commitOneMs", Stats.round(commitOne));
        d.put("cloneMs", Stats.round(clone));
        d.put("fetchMs", Stats.round(fetch));
        d.put("repoBytes", bytes);
        detail.add(d);
        System.out.printf(
            Locale.ROOT,
            "%s round %d: commit of %d units %s ms, of one %s ms, clone %s ms, fetch %s ms, %s%n",
            storage, round, units, Table.ms(commitAll), Table.ms(commitOne), Table.ms(clone),
            Table.ms(fetch), mib(bytes));
        deleteTree(into);
      }
      if (storage.equals("postgres")) {
        tables.putAll(pgTables(db));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("storage", storage);
    out.put("units", units);
    out.put("rounds", rounds);
    out.put("loadAverage", readLoad());
    Map<String, Object> stats = new LinkedHashMap<>();
    for (String s : STEPS) {
      stats.put(s, Stats.ofMillis(samples.get(s).stream().mapToDouble(Double::doubleValue).toArray()).toMap());
    }
    out.put("stats", stats);
    out.put("repoBytesMedian", median(sizes));
    if (!tables.isEmpty()) {
      out.put("tables", tables);
    }
    out.put("rounds_detail", detail);
    try {
      Files.createDirectories(part.toAbsolutePath().getParent());
      JsonHttp.JSON.writerWithDefaultPrettyPrinter().writeValue(part.toFile(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The benchmark's own ProjectRepos on the storage the hub runs with. */
  private static ProjectRepos open(String storage, Path gitRoot, HikariDataSource db) {
    return switch (storage) {
      case "file" -> new ProjectRepos(new FileRepoStore(gitRoot));
      case "postgres" -> new ProjectRepos(new PostgresRepoStore(db));
      default -> throw new IllegalArgumentException("--storage must be file or postgres, not " + storage);
    };
  }

  /** Writes the units' files as trees (a pack per batch) and commits them on main in one commit. */
  private static CommitResult commitUnits(
      ProjectRepos repos, UUID org, UUID project, Units u, List<Integer> which, String subject) {
    List<TreeEdit> edits = new ArrayList<>(which.size());
    for (int from = 0; from < which.size(); from += BATCH) {
      int to = Math.min(which.size(), from + BATCH);
      List<SortedMap<String, byte[]>> files = new ArrayList<>();
      for (int i = from; i < to; i++) {
        files.add(u.files(which.get(i)));
      }
      List<ObjectId> trees = repos.writeTrees(org, project, files);
      for (int i = from; i < to; i++) {
        edits.add(TreeEdit.tree(u.path(which.get(i)), trees.get(i - from)));
      }
    }
    String message =
        new CommitMessage(subject, "", "bench (benchmark)", Map.of("project", "bench"), "delivery.generated")
            .format();
    CommitResult r =
        repos.commit(org, project, ProjectRepos.MAIN, null, edits, new Ident("bench", "bench@users.gitopshq.invalid"), message);
    repos.maintain(org, project); // as the generation's commit does
    return r;
  }

  /**
   * The rendered manifests of {@code n} units (5 environments x tenants x 10 workloads, as the
   * delivery benchmark's scenario), 4 files each: a Deployment, a Service, a ConfigMap and a
   * HorizontalPodAutoscaler, about 2.5 KB together, each unit's own names and namespace.
   */
  static final class Units {
    private final int n;
    private final int[] generation;

    Units(int n) {
      this.n = n;
      this.generation = new int[n];
    }

    List<Integer> all() {
      List<Integer> all = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        all.add(i);
      }
      return all;
    }

    void bump(int i) {
      generation[i]++;
    }

    String env(int i) {
      return "env-" + (i % 5);
    }

    String tenant(int i) {
      return "tenant-" + (i / 5 / 10);
    }

    String workload(int i) {
      return "workload-" + (i / 5 % 10);
    }

    String path(int i) {
      return "rendered/" + env(i) + "/" + tenant(i) + "/" + workload(i);
    }

    SortedMap<String, byte[]> files(int i) {
      String ns = tenant(i) + "-" + env(i);
      String w = workload(i);
      String labels =
          "  labels:\n    app.kubernetes.io/name: " + w + "\n    app.kubernetes.io/instance: " + w
              + "-" + ns + "\n    app.kubernetes.io/managed-by: gitopshq\n    gitopshq.dev/tenant: "
              + tenant(i) + "\n    gitopshq.dev/environment: " + env(i) + "\n";
      SortedMap<String, byte[]> f = new TreeMap<>();
      f.put(
          "deployment-" + w + ".yaml",
          bytes(
              "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + w + "\n  namespace: " + ns
                  + "\n" + labels + "spec:\n  replicas: " + (2 + generation[i]) + "\n  selector:\n"
                  + "    matchLabels:\n      app.kubernetes.io/name: " + w + "\n  template:\n"
                  + "    metadata:\n  " + labels.replace("\n  ", "\n    ") + "    spec:\n"
                  + "      containers:\n        - name: " + w + "\n          image: registry.example.com/"
                  + tenant(i) + "/" + w + ":1." + (i % 7) + "." + generation[i] + "\n"
                  + "          ports:\n            - containerPort: 8080\n              name: http\n"
                  + "          resources:\n            requests:\n              cpu: 100m\n"
                  + "              memory: 128Mi\n            limits:\n              memory: 256Mi\n"
                  + "          readinessProbe:\n            httpGet:\n              path: /healthz\n"
                  + "              port: http\n          envFrom:\n            - configMapRef:\n"
                  + "                name: " + w + "-config\n"));
      f.put(
          "service-" + w + ".yaml",
          bytes(
              "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + w + "\n  namespace: " + ns + "\n"
                  + labels + "spec:\n  selector:\n    app.kubernetes.io/name: " + w + "\n  ports:\n"
                  + "    - port: 80\n      targetPort: http\n"));
      f.put(
          "configmap-" + w + "-config.yaml",
          bytes(
              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + w + "-config\n  namespace: "
                  + ns + "\n" + labels + "data:\n  LOG_LEVEL: info\n  TENANT: " + tenant(i)
                  + "\n  ENVIRONMENT: " + env(i) + "\n  FEATURE_FLAGS: \"a,b,c\"\n"));
      f.put(
          "hpa-" + w + ".yaml",
          bytes(
              "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + w
                  + "\n  namespace: " + ns + "\n" + labels + "spec:\n  scaleTargetRef:\n"
                  + "    apiVersion: apps/v1\n    kind: Deployment\n    name: " + w + "\n"
                  + "  minReplicas: 2\n  maxReplicas: 10\n"));
      return f;
    }

    private static byte[] bytes(String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static UUID orgId(JsonHttp api) {
    JsonNode me = api.get("/api/v2/me").expect(200, "GET /api/v2/me");
    String id = me.path("org").path("id").asText("");
    if (id.isEmpty()) {
      throw new IllegalStateException("GET /api/v2/me names no organization: " + me);
    }
    return UUID.fromString(id);
  }

  /** Waits (at most 60 s) until the project's first delivery generation is done. */
  private static void awaitGenerated(JsonHttp api, UUID project) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      JsonNode p = api.get("/api/v2/projects/" + project).expect(200, "GET /api/v2/projects/{id}");
      if (p.path("generatedRevision").asLong(0) >= p.path("configRevision").asLong(1)) {
        return;
      }
      sleep(200);
    }
    throw new IllegalStateException("project " + project + ": its first generation did not finish in 60 s");
  }

  /** Runs git with the token in an extra header given through the environment, never argv. */
  private static String git(String token, Path dir, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("git", "-c", "credential.helper=", "-c", "protocol.version=2"));
    cmd.addAll(List.of(args));
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_ASKPASS", "/bin/false");
    env.put("GIT_CONFIG_COUNT", "1");
    env.put("GIT_CONFIG_KEY_0", "http.extraHeader");
    env.put("GIT_CONFIG_VALUE_0", "Authorization: Bearer " + token);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IllegalStateException("git " + String.join(" ", args) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    return out;
  }

  /** The bytes of the repository's packs in PostgreSQL (chunk data, without row overhead). */
  private static long pgBytes(HikariDataSource db, UUID org, UUID project) {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select coalesce(sum(octet_length(data)), 0) from git_pack_chunks"
                    + " where org_id = ? and project_id = ?")) {
      ps.setObject(1, org);
      ps.setObject(2, project);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the pack sizes: " + e.getMessage(), e);
    }
  }

  /** The git_* tables' total size (data, TOAST and indexes) after the run. */
  private static Map<String, Object> pgTables(HikariDataSource db) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select relname, pg_total_relation_size(oid) from pg_class"
                    + " where relname like 'git\\_%' and relkind = 'r' order by relname");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the table sizes: " + e.getMessage(), e);
    }
    return out;
  }

  private static long dirBytes(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static long median(List<Long> v) {
    List<Long> s = new ArrayList<>(v);
    s.sort(null);
    return s.get(s.size() / 2);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.2f MiB", bytes / 1048576.0);
  }

  private static String readLoad() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  // ---- the report --------------------------------------------------------------------------------

  private static void report(Args args) {
    JsonNode file = readJson(Path.of(args.required("file")));
    JsonNode pg = readJson(Path.of(args.required("postgres")));
    Path out = Path.of(args.required("out"));
    args.rejectUnknown();
    int units = file.path("units").asInt();
    Table t = new Table("step (median of " + file.path("rounds").asInt() + ")", "file ms", "postgres ms", "postgres/file");
    Map<String, Object> medians = new LinkedHashMap<>();
    String[] labels = {
      "commit of " + units + " units", "incremental commit (1 unit)", "git clone over HTTP", "git fetch (1 new commit)"
    };
    for (int i = 0; i < STEPS.length; i++) {
      double f = file.path("stats").path(STEPS[i]).path("p50Ms").asDouble();
      double p = pg.path("stats").path(STEPS[i]).path("p50Ms").asDouble();
      t.row(labels[i], f, p, String.format(Locale.ROOT, "%.2fx", p / f));
      medians.put(STEPS[i], Map.of("fileMs", f, "postgresMs", p, "ratio", Stats.round(p / f)));
    }
    long fb = file.path("repoBytesMedian").asLong();
    long pb = pg.path("repoBytesMedian").asLong();
    t.row("repository size (MiB)", String.format(Locale.ROOT, "%.2f", fb / 1048576.0),
        String.format(Locale.ROOT, "%.2f", pb / 1048576.0), String.format(Locale.ROOT, "%.2fx", (double) pb / fb));
    System.out.println();
    System.out.println(t);
    System.out.println("PostgreSQL tables after the run (data, TOAST, indexes): " + pg.path("tables"));
    Report r = new Report("git-storage");
    r.put("medians", medians);
    r.put("repoBytes", Map.of("file", fb, "postgres", pb));
    r.put("file", file);
    r.put("postgres", pg);
    r.write(out);
    System.out.println("wrote " + out);
  }

  private static JsonNode readJson(Path p) {
    try {
      return JsonHttp.JSON.readTree(p.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + p, e);
    }
  }
}
