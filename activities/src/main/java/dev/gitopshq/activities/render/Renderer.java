package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.git.RepoPaths;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Renders one {@link Unit} into the files of its directory (keys are paths relative to {@link
 * Unit#path()}).
 *
 * <table>
 *   <caption>What each kind of unit becomes</caption>
 *   <tr><th>kind</th><th>files</th></tr>
 *   <tr><td>{@code helm}</td><td>the chart rendered by Helm's template engine in a render worker
 *       process ({@link RenderWorkers}; what {@code helm template} prints) with release name =
 *       service, the unit's namespace and values; one file per
 *       object, each document as Helm printed it (with its {@code # Source:} line) but for the
 *       {@code namespace:} line a namespaced object without one gets</td></tr>
 *   <tr><td>{@code manifests}</td><td>the bundle's objects, each overlay applied as a JSON merge
 *       patch (RFC 7386) to the objects of its kind and name (every object of the kind when the
 *       name is empty), {@code metadata.namespace} set to the unit's namespace where a namespaced
 *       object has none; one file per object, re-serialized with the keys in the order they were
 *       written. An overlay that matches no object is an error, to catch typos.</td></tr>
 *   <tr><td>{@code kustomize}</td><td>{@code kustomization.yaml}: the namespace, the base as the
 *       only resource and one patch per overlay (target kind and name, the overlay as an inline
 *       strategic-merge patch, which {@code kustomize build} applies like a merge patch except
 *       that lists with merge keys, such as containers by name, are merged)</td></tr>
 *   <tr><td>{@code kustomize-base}</td><td>the base's files as they are</td></tr>
 * </table>
 *
 * <p>Every object of every unit passes {@link UnitObjects}: its kind's scope must be known, a
 * namespaced object gets the unit's namespace and may name no other, and the project's fence must
 * allow it; otherwise the unit fails naming the file. A {@code namespace} unit is the Namespace
 * object of its namespace.
 *
 * <p>Object files are named {@code <kind>-<name>.yaml}, lowercase, every character outside {@code
 * [a-z0-9.-]} replaced by {@code -}; when two objects get the same name, the later ones (in
 * document order) get {@code -2}, {@code -3}, ... before {@code .yaml}.
 *
 * <p>Helm renders run in the render worker processes ({@link RenderWorkers}), one render per
 * process at a time; the chart and the values go to the process over its pipe, so nothing is
 * written to disk. Renders from several threads at once give the same output as one after another
 * (HelmRenderTest checks it), so the renderer takes no lock and a worker may run render activities
 * in parallel.
 */
public final class Renderer {
  /**
   * The version of what this renderer makes of a unit. It is part of every unit's {@link
   * UnitFingerprint}, and generation reuses a unit's tree from an earlier generation only when the
   * fingerprints are equal: change it whenever the same input would render differently (a Helm
   * upgrade of the render worker, a change to how objects are split, named or defaulted), and every
   * unit is rendered again. It still names helm-java 0.0.21 (Helm v3.21.0), which the render worker
   * replaced: the worker is built from the same Helm module and prints the same manifests
   * (HelmRenderTest compares them with the helm CLI of that version), so units rendered before need
   * not be rendered again.
   */
  public static final String OUTPUT_VERSION = "helm-java-0.0.21/2";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SEPARATOR = Pattern.compile("(?m)^---[ \\t]*(?:\\r?\\n|$)");
  private static final Pattern UNSAFE = Pattern.compile("[^a-z0-9.-]");

  /**
   * What is known of verified chart digests, most recent last: where the chart calls {@code lookup}
   * (empty: nowhere) and the scopes of the custom kinds its {@code crds/} define.
   */
  private final Map<String, ChartFacts> factsByDigest =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ChartFacts> e) {
              return size() > 256;
            }
          });

  private record ChartFacts(Optional<String> lookup, Map<String, Boolean> crdScopes) {}

  private final RenderWorkers workers;
  private final String outputVersion;

  /** A renderer on the process's render workers ({@link RenderWorkers#shared()}). */
  public Renderer() {
    this(null, OUTPUT_VERSION);
  }

  /**
   * A renderer that reports {@code outputVersion} instead of {@link #OUTPUT_VERSION}: what a
   * renderer upgrade looks like to generation (tests and the benchmark use it).
   */
  public Renderer(String outputVersion) {
    this(null, outputVersion);
  }

  /** A renderer on these render workers (null: the process's shared pool, on first use). */
  public Renderer(RenderWorkers workers) {
    this(workers, OUTPUT_VERSION);
  }

  public Renderer(RenderWorkers workers, String outputVersion) {
    this.workers = workers;
    if (outputVersion == null || outputVersion.isBlank()) {
      throw new IllegalArgumentException("the renderer's output version must not be blank");
    }
    this.outputVersion = outputVersion;
  }

  private RenderWorkers workers() {
    return workers != null ? workers : RenderWorkers.shared();
  }

  /** The version of this renderer's output ({@link #OUTPUT_VERSION} unless a test chose one). */
  public String outputVersion() {
    return outputVersion;
  }

  /** The {@link UnitFingerprint} of {@code unit} as this renderer renders it. */
  public String fingerprint(Unit unit) {
    return UnitFingerprint.of(unit, outputVersion);
  }

  /**
   * The files of one unit, by path relative to the unit's directory.
   *
   * @param charts where helm units get their chart archive
   * @throws RenderException naming the unit and the reason
   */
  public SortedMap<String, byte[]> render(Unit unit, ChartSource charts) {
    return switch (unit.kind()) {
      case Unit.HELM -> helm(unit, charts);
      case Unit.MANIFESTS -> manifests(unit);
      case Unit.KUSTOMIZE -> kustomize(unit);
      case Unit.KUSTOMIZE_BASE -> base(unit);
      case Unit.NAMESPACE -> namespace(unit);
      default ->
          throw new RenderException(
              "unit " + unit.path() + " has unknown kind '" + unit.kind() + "'");
    };
  }

  // ---------------------------------------------------------------- helm

  private SortedMap<String, byte[]> helm(Unit unit, ChartSource charts) {
    byte[] archive = charts.archive(unit.chartDigest());
    if (archive == null) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": chart "
              + unit.chart()
              + " "
              + unit.chartVersion()
              + " (sha256 "
              + unit.chartDigest()
              + ") is not stored");
    }
    if (!ChartArchive.sha256(archive).equals(unit.chartDigest())) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": the stored archive of chart "
              + unit.chart()
              + " "
              + unit.chartVersion()
              + " does not match its digest "
              + unit.chartDigest());
    }
    // The digest was verified above, so what is known of the digest holds for these bytes.
    ChartFacts facts = factsByDigest.get(unit.chartDigest());
    if (facts == null) {
      facts =
          new ChartFacts(
              Optional.ofNullable(ChartArchive.lookupUse(archive)),
              Map.copyOf(UnitObjects.crdScopesOfTexts(ChartArchive.crdTexts(archive))));
      factsByDigest.put(unit.chartDigest(), facts);
    }
    if (facts.lookup().isPresent()) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": "
              + ChartArchive.lookupMessage(facts.lookup().get()));
    }
    RenderWorkers.Outcome outcome;
    try {
      outcome =
          workers()
              .render(unit.chartDigest(), archive, unit.service(), unit.namespace(), unit.values());
    } catch (RenderWorkers.LimitException e) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": chart "
              + unit.chart()
              + " "
              + unit.chartVersion()
              + ": "
              + e.getMessage(),
          e);
    }
    if (outcome instanceof RenderWorkers.Failed failed) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": Helm: "
              + ChartArchive.helmMessage(failed.message()));
    }
    return helmFiles(unit, ((RenderWorkers.Rendered) outcome).manifest(), facts.crdScopes());
  }

  /**
   * One file per object of Helm's multi-document output, each document's text kept as printed but
   * for the namespace a namespaced object without one gets ({@link UnitObjects}).
   */
  private static SortedMap<String, byte[]> helmFiles(
      Unit unit, String output, Map<String, Boolean> chartCrds) {
    List<String> docs = new ArrayList<>();
    List<Object> objects = new ArrayList<>();
    for (String doc : SEPARATOR.split(output == null ? "" : output)) {
      List<Object> parsed;
      try {
        parsed = Yaml.readAll(doc);
      } catch (JsonProcessingException e) {
        throw new RenderException(
            "cannot render "
                + describe(unit)
                + ": Helm printed a document that is not YAML ("
                + source(doc)
                + "): "
                + e.getOriginalMessage(),
            e);
      }
      if (parsed.isEmpty()) {
        continue;
      }
      if (parsed.size() > 1) {
        throw new RenderException(
            "cannot render "
                + describe(unit)
                + ": "
                + source(doc)
                + " printed several documents in one");
      }
      identity(unit, parsed.get(0), source(doc));
      docs.add(doc);
      objects.add(parsed.get(0));
    }
    Map<String, Boolean> crds = new HashMap<>(chartCrds);
    crds.putAll(UnitObjects.crdScopes(objects));
    UnitObjects checks = new UnitObjects(unit, crds);
    ObjectFiles out = new ObjectFiles();
    for (int i = 0; i < docs.size(); i++) {
      String doc = docs.get(i);
      Map<String, Object> object = Values.asMap(objects.get(i));
      if (checks.check(object, source(doc))) {
        doc = UnitObjects.withNamespace(doc, object, unit.namespace());
      }
      out.add(identity(unit, object, source(doc)), doc.getBytes(StandardCharsets.UTF_8));
    }
    return out.files;
  }

  private static String source(String doc) {
    for (String line : doc.split("\n", 5)) {
      if (line.startsWith("# Source: ")) {
        return line.substring("# Source: ".length()).trim();
      }
    }
    return "a template";
  }

  // ---------------------------------------------------------------- manifests

  private static SortedMap<String, byte[]> manifests(Unit unit) {
    checkOverlays(unit);
    List<Map<String, Object>> objects = new ArrayList<>();
    List<String> origins = new ArrayList<>();
    for (Map.Entry<String, String> f : new TreeMap<>(unit.files()).entrySet()) {
      checkPath(unit, f.getKey());
      List<Object> docs;
      try {
        docs = Yaml.readAll(f.getValue());
      } catch (JsonProcessingException e) {
        throw new RenderException(
            "cannot render "
                + describe(unit)
                + ": "
                + f.getKey()
                + " is not valid YAML: "
                + e.getOriginalMessage(),
            e);
      }
      for (Object doc : docs) {
        if (!(doc instanceof Map<?, ?>)) {
          throw new RenderException(
              "cannot render "
                  + describe(unit)
                  + ": "
                  + f.getKey()
                  + " holds a document that is not a Kubernetes object");
        }
        objects.add(Values.asMap(Values.copy(doc)));
        origins.add(f.getKey());
      }
    }
    int number = 0;
    for (Overlay overlay : unit.overlays()) {
      number++;
      boolean matched = false;
      for (int i = 0; i < objects.size(); i++) {
        Map<String, Object> object = objects.get(i);
        if (overlay.kind().equals(object.get("kind"))
            && (overlay.name() == null
                || overlay.name().isEmpty()
                || overlay.name().equals(name(object)))) {
          objects.set(i, Values.asMap(Values.mergePatch(object, overlay.patch())));
          matched = true;
        }
      }
      if (!matched) {
        throw new RenderException(
            "cannot render "
                + describe(unit)
                + ": overlay "
                + number
                + " targets "
                + overlay.kind()
                + (overlay.name() == null || overlay.name().isEmpty()
                    ? " objects"
                    : " " + overlay.name())
                + ", which the bundle does not have");
      }
    }
    UnitObjects checks = new UnitObjects(unit, UnitObjects.crdScopes(objects));
    ObjectFiles out = new ObjectFiles();
    for (int i = 0; i < objects.size(); i++) {
      Map<String, Object> object = objects.get(i);
      identity(unit, object, origins.get(i));
      if (checks.check(object, origins.get(i))) {
        object = UnitObjects.withNamespace(object, unit.namespace());
      }
      out.add(
          identity(unit, object, origins.get(i)),
          Yaml.write(object).getBytes(StandardCharsets.UTF_8));
    }
    return out.files;
  }

  /**
   * Refuses overlays that would change what an object is or where it goes ({@link
   * UnitObjects#FIXED_FIELDS}): the API refuses them when a binding is written, and this refuses
   * them again for what was stored before.
   */
  private static void checkOverlays(Unit unit) {
    for (int i = 0; i < unit.overlays().size(); i++) {
      List<String> touched = UnitObjects.fixedFieldsTouched(unit.overlays().get(i).patch());
      if (!touched.isEmpty()) {
        throw new RenderException(
            "cannot render "
                + describe(unit)
                + ": overlay "
                + (i + 1)
                + " changes "
                + String.join(", ", touched)
                + "; an overlay may not change an object's kind, apiVersion, name or namespace");
      }
    }
  }

  /** The Namespace object of the unit's namespace, when its fence allows it. */
  private static SortedMap<String, byte[]> namespace(Unit unit) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", unit.namespace());
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("apiVersion", "v1");
    object.put("kind", "Namespace");
    object.put("metadata", metadata);
    new UnitObjects(unit, Map.of())
        .check(object, "the Namespace of environment " + unit.environment());
    ObjectFiles out = new ObjectFiles();
    out.add(
        new String[] {"Namespace", unit.namespace()},
        Yaml.write(object).getBytes(StandardCharsets.UTF_8));
    return out.files;
  }

  // ---------------------------------------------------------------- kustomize

  private static SortedMap<String, byte[]> kustomize(Unit unit) {
    checkOverlays(unit);
    Map<String, Object> k = new LinkedHashMap<>();
    k.put("apiVersion", "kustomize.config.k8s.io/v1beta1");
    k.put("kind", "Kustomization");
    k.put("namespace", unit.namespace());
    k.put("resources", List.of(unit.basePath()));
    List<Object> patches = new ArrayList<>();
    for (Overlay overlay : unit.overlays()) {
      boolean named = overlay.name() != null && !overlay.name().isEmpty();
      Map<String, Object> target = new LinkedHashMap<>();
      target.put("kind", overlay.kind());
      if (named) {
        target.put("name", overlay.name());
      }
      // kustomize needs a name in a strategic-merge patch even when the target selects the
      // objects; with a target it patches every match whatever name the patch carries.
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("name", named ? overlay.name() : "any");
      Map<String, Object> patch = new LinkedHashMap<>();
      patch.put("kind", overlay.kind());
      Map<String, Object> body = overlay.patch() == null ? Map.of() : overlay.patch();
      if (body.get("metadata") instanceof Map<?, ?> extra) {
        Values.asMap(extra)
            .forEach(
                (key, value) -> {
                  if (!key.equals("name")) {
                    metadata.put(key, Values.copy(value));
                  }
                });
      }
      patch.put("metadata", metadata);
      body.forEach(
          (key, value) -> {
            if (!key.equals("kind") && !key.equals("metadata")) {
              patch.put(key, Values.copy(value));
            }
          });
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("target", target);
      entry.put("patch", Yaml.write(patch));
      patches.add(entry);
    }
    if (!patches.isEmpty()) {
      k.put("patches", patches);
    }
    SortedMap<String, byte[]> files = new TreeMap<>();
    files.put("kustomization.yaml", Yaml.write(k).getBytes(StandardCharsets.UTF_8));
    return files;
  }

  private static SortedMap<String, byte[]> base(Unit unit) {
    SortedMap<String, byte[]> files = new TreeMap<>();
    unit.files()
        .forEach(
            (path, text) -> {
              checkPath(unit, path);
              files.put(path, text.getBytes(StandardCharsets.UTF_8));
            });
    UnitObjects.checkBase(unit);
    return files;
  }

  // ---------------------------------------------------------------- shared

  private static void checkPath(Unit unit, String path) {
    String why = RepoPaths.problem(path);
    if (why != null) {
      throw new RenderException(
          "cannot render " + describe(unit) + ": file path '" + path + "' " + why);
    }
  }

  /** kind and metadata.name of an object, or a RenderException naming where it came from. */
  private static String[] identity(Unit unit, Object doc, String origin) {
    if (!(doc instanceof Map<?, ?> object)) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": "
              + origin
              + " holds a document that is not a Kubernetes object");
    }
    Object kind = object.get("kind");
    String name = name(Values.asMap(object));
    if (!(kind instanceof String k) || k.isEmpty() || name == null || name.isEmpty()) {
      throw new RenderException(
          "cannot render "
              + describe(unit)
              + ": an object in "
              + origin
              + " lacks kind or metadata.name (every object needs both to be applied by GitOps)");
    }
    return new String[] {k, name};
  }

  private static String name(Map<String, Object> object) {
    return object.get("metadata") instanceof Map<?, ?> metadata
            && metadata.get("name") instanceof String name
        ? name
        : null;
  }

  /** File names for objects, with -2, -3 for clashes in document order. */
  private static final class ObjectFiles {
    final SortedMap<String, byte[]> files = new TreeMap<>();

    void add(String[] identity, byte[] content) {
      String stem =
          UNSAFE
              .matcher((identity[0] + "-" + identity[1]).toLowerCase(Locale.ROOT))
              .replaceAll("-");
      String name = stem + ".yaml";
      for (int n = 2; files.containsKey(name); n++) {
        name = stem + "-" + n + ".yaml";
      }
      files.put(name, content);
    }
  }

  static String describe(Unit unit) {
    return switch (unit.kind()) {
      case Unit.KUSTOMIZE_BASE -> "Kustomize base " + unit.path();
      default ->
          unit.service()
              + " for tenant "
              + unit.tenant()
              + " in "
              + unit.environment()
              + " on cluster "
              + unit.cluster();
    };
  }
}
