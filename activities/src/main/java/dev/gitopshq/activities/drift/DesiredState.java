package dev.gitopshq.activities.drift;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.agent.v1.DirectLabels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The objects deployments delivered to a cluster: for every project environment bound to the
 * cluster ({@code project_environment_clusters}), the YAML documents of the files of {@code
 * deploy/<environment>} under {@code <cluster>/<tenant>/}. Kustomize units ({@code
 * kustomization.yaml}) are not expanded here: their objects are left out of the check. On a cluster
 * in delivery mode {@code direct} each object carries the labels the agent's direct apply added
 * ({@link DirectLabels}), as it was applied: without them the comparison (a server-side-apply dry
 * run as the same field manager) would drop them and report every object drifted, and resolve-drift
 * would strip them.
 *
 * <p>Bounded before anything is read: at most {@link #MAX_OBJECTS} objects, {@link #MAX_FILE_BYTES}
 * per file, {@link #MAX_OBJECT_BYTES} per object and {@link #MAX_TOTAL_BYTES} in all; what is over
 * a bound is skipped and named in {@link Loaded#skipped()}.
 */
public final class DesiredState {
  public static final int MAX_OBJECTS = 500;
  public static final int MAX_FILE_BYTES = 1024 * 1024;
  public static final int MAX_OBJECT_BYTES = 256 * 1024;
  public static final int MAX_TOTAL_BYTES = 3 * 1024 * 1024;

  private static final Set<String> KUSTOMIZATION =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(boundedYaml());

  private final DriftMapper mapper;
  private final ProjectRepos repos;

  public DesiredState(DriftMapper mapper, ProjectRepos repos) {
    this.mapper = mapper;
    this.repos = repos;
  }

  /** What was loaded, and what was left out and why. */
  public record Loaded(List<DesiredObject> objects, List<String> skipped) {}

  /** Loads the desired objects of a cluster (by its name, the top directory on deploy branches). */
  public Loaded load(UUID orgId, UUID clusterId, String clusterName) {
    Map<String, DesiredObject> out = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    int[] total = {0};
    for (DriftBindingRow b : mapper.bindings(orgId, clusterId)) {
      if (!repos.exists(orgId, b.projectId())) {
        continue;
      }
      String branch = ProjectRepos.deployBranch(b.environment());
      Optional<ObjectId> head = repos.head(orgId, b.projectId(), branch);
      if (head.isEmpty()) {
        continue;
      }
      try {
        repos.walkFiles(
            orgId,
            b.projectId(),
            head.get(),
            (path, blob) -> {
              String[] parts = path.split("/");
              if (parts.length < 3 || !parts[0].equals(clusterName)) {
                return;
              }
              String file = parts[parts.length - 1];
              if (KUSTOMIZATION.contains(file)
                  || !(file.endsWith(".yaml") || file.endsWith(".yml") || file.endsWith(".json"))) {
                return;
              }
              String where = b.project() + ":" + branch + ":" + path;
              long size = blob.size();
              if (size > MAX_FILE_BYTES) {
                skipped.add(where + ": larger than " + MAX_FILE_BYTES + " bytes");
                return;
              }
              String text = new String(blob.bytes(), StandardCharsets.UTF_8);
              List<JsonNode> docs;
              try {
                docs = documents(text);
              } catch (IOException | RuntimeException e) {
                skipped.add(where + ": not YAML");
                return;
              }
              for (JsonNode doc : docs) {
                DesiredObject o = object(b, parts[1], path, doc);
                if (o == null) {
                  continue;
                }
                int bytes = o.manifest().length();
                if (bytes > MAX_OBJECT_BYTES) {
                  skipped.add(where + ": " + o.kind() + " " + o.name() + " is over 256 KiB");
                } else if (out.size() >= MAX_OBJECTS) {
                  skipped.add(where + ": over " + MAX_OBJECTS + " objects");
                } else if (total[0] + bytes > MAX_TOTAL_BYTES) {
                  skipped.add(where + ": over " + MAX_TOTAL_BYTES + " bytes of manifests");
                } else if (out.putIfAbsent(o.key(), o) == null) {
                  total[0] += bytes;
                }
              }
            });
      } catch (IOException e) {
        skipped.add(b.project() + ":" + branch + ": unreadable (" + e.getMessage() + ")");
      }
    }
    return new Loaded(List.copyOf(out.values()), skipped);
  }

  private static DesiredObject object(DriftBindingRow b, String tenant, String path, JsonNode doc) {
    if (!(doc instanceof ObjectNode o)
        || !o.path("apiVersion").isTextual()
        || !o.path("kind").isTextual()
        || !o.path("metadata").path("name").isTextual()) {
      return null;
    }
    String apiVersion = o.get("apiVersion").asText();
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    String ns = o.path("metadata").path("namespace").asText("");
    if (b.direct()) {
      // The agent applied the file with these labels over its own: compare (and resolve to) that.
      ObjectNode meta = (ObjectNode) o.get("metadata");
      ObjectNode labels = meta.get("labels") instanceof ObjectNode l ? l : meta.putObject("labels");
      DirectLabels.of(b.project(), b.environment(), tenant).forEach(labels::put);
    }
    String manifest;
    try {
      manifest = JSON.writeValueAsString(o);
    } catch (IOException e) {
      return null;
    }
    return new DesiredObject(
        b.projectId(),
        b.project(),
        b.environment(),
        tenant,
        path,
        group,
        version,
        o.get("kind").asText(),
        ns,
        o.path("metadata").path("name").asText(),
        manifest);
  }

  /** The documents of one YAML file, read with bounded aliases, nesting and size. */
  public static List<JsonNode> documents(String text) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNextValue()) {
        JsonNode n = it.nextValue();
        if (n != null && !n.isNull() && !n.isMissingNode()) {
          docs.add(n);
        }
      }
    }
    return docs;
  }

  private static YAMLFactory boundedYaml() {
    LoaderOptions o = new LoaderOptions();
    o.setMaxAliasesForCollections(50);
    o.setNestingDepthLimit(100);
    o.setCodePointLimit(MAX_FILE_BYTES * 2);
    return YAMLFactory.builder().loaderOptions(o).build();
  }
}
