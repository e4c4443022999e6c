package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.gitopshq.agent.v1.KindScopes;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the renderer makes sure of for every object a unit writes, whatever made it (Helm, a bundle,
 * a Namespace of the environment):
 *
 * <ol>
 *   <li><b>Its scope.</b> A built-in kind's by {@link KindScopes}; else a
 *       CustomResourceDefinition's {@code spec.scope} when the chart (its output or its {@code
 *       crds/}) or the bundle ships one; else what the workload or binding declares in {@code
 *       kindScopes} ({@code group/Kind: Namespaced|Cluster}). A kind known none of these ways fails
 *       the unit, naming the kind and the file: the hub cannot know whether it needs a namespace.
 *   <li><b>Its namespace.</b> A namespaced object without {@code metadata.namespace} gets the
 *       unit's, as {@code helm template --namespace} with Kustomize's {@code namespace:} would; one
 *       that names another namespace fails the unit, naming the file. Cluster-scoped objects are
 *       left alone.
 *   <li><b>The project's fence.</b> {@link TenantFences#objectRefusal} must allow it, or the unit
 *       fails with the fence's sentence; a refused object never reaches a commit.
 * </ol>
 */
public final class UnitObjects {
  private static final String CRD_GROUP = "apiextensions.k8s.io";

  private final Unit unit;
  private final TenantFence fence;
  private final Map<String, Boolean> shipped;

  /**
   * @param shipped the scope of the custom kinds the unit's source ships CRDs for, by {@code
   *     group/Kind} (true: namespaced)
   */
  UnitObjects(Unit unit, Map<String, Boolean> shipped) {
    this.unit = unit;
    this.fence = unit.fence().toProto();
    this.shipped = shipped;
  }

  /** The scopes of the CustomResourceDefinitions among {@code objects}, by {@code group/Kind}. */
  static Map<String, Boolean> crdScopes(List<?> objects) {
    Map<String, Boolean> scopes = new HashMap<>();
    for (Object o : objects) {
      if (o instanceof Map<?, ?> object
          && "CustomResourceDefinition".equals(object.get("kind"))
          && CRD_GROUP.equals(KindScopes.group(String.valueOf(object.get("apiVersion"))))
          && object.get("spec") instanceof Map<?, ?> spec
          && spec.get("group") instanceof String group
          && spec.get("names") instanceof Map<?, ?> names
          && names.get("kind") instanceof String kind) {
        scopes.put(group + "/" + kind, !"Cluster".equals(spec.get("scope")));
      }
    }
    return scopes;
  }

  /**
   * The CRD scopes of YAML texts (a chart's {@code crds/} files); texts that do not parse count for
   * nothing (Helm would refuse them when it installs them).
   */
  static Map<String, Boolean> crdScopesOfTexts(List<String> texts) {
    Map<String, Boolean> scopes = new HashMap<>();
    for (String text : texts) {
      try {
        scopes.putAll(crdScopes(Yaml.readAll(text)));
      } catch (JsonProcessingException | RuntimeException e) {
        // not a CRD the hub can read: its kinds stay unknown
      }
    }
    return scopes;
  }

  /**
   * Checks one object and says whether it needs the unit's namespace written into it.
   *
   * @param origin the file or template it came from, for the messages
   * @throws RenderException naming the origin when the kind is unknown, the object names another
   *     namespace or the fence refuses it
   */
  boolean check(Map<String, Object> object, String origin) {
    String apiVersion = object.get("apiVersion") instanceof String v ? v : "";
    String kind = String.valueOf(object.get("kind"));
    String name = String.valueOf(metadata(object).get("name"));
    boolean namespaced = namespaced(apiVersion, kind, origin);
    Object current = metadata(object).get("namespace");
    boolean missing = current == null || current.toString().isEmpty();
    if (namespaced && !missing && !current.toString().equals(unit.namespace())) {
      throw fail(
          origin
              + ": "
              + kind
              + " "
              + name
              + " names namespace "
              + current
              + ", not "
              + unit.namespace()
              + ", the namespace of its environment's pattern; remove metadata.namespace or make"
              + " it "
              + unit.namespace());
    }
    String refusal =
        TenantFences.objectRefusal(
            fence, apiVersion, kind, name, namespaced ? unit.namespace() : "", namespaced);
    if (refusal != null) {
      throw fail(origin + ": " + refusal);
    }
    return namespaced && missing;
  }

  /** Whether objects of a kind are namespaced, or a RenderException when the hub cannot know. */
  boolean namespaced(String apiVersion, String kind, String origin) {
    var builtIn = KindScopes.namespaced(apiVersion, kind);
    if (builtIn.isPresent()) {
      return builtIn.get();
    }
    String key = KindScopes.group(apiVersion) + "/" + kind;
    Boolean crd = shipped.get(key);
    if (crd != null) {
      return crd;
    }
    String declared = unit.kindScopes().get(key);
    if (declared != null) {
      return !"Cluster".equals(declared);
    }
    throw fail(
        origin
            + ": kind "
            + kind
            + " (apiVersion "
            + apiVersion
            + ") is not a kind the hub knows the scope of; ship its CustomResourceDefinition"
            + " with the "
            + (unit.kind().equals(Unit.HELM) ? "chart" : "bundle")
            + ", or declare it in kindScopes of "
            + (unit.kind().equals(Unit.HELM) ? "workload " : "binding ")
            + unit.service()
            + " ({\""
            + key
            + "\": \"Namespaced\"} or \"Cluster\")");
  }

  private RenderException fail(String what) {
    return new RenderException("cannot render " + Renderer.describe(unit) + ": " + what);
  }

  private static Map<?, ?> metadata(Map<String, Object> object) {
    return object.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
  }

  /**
   * The fence's kind rules on the objects a Kustomize base spells out: a denied kind, or a
   * cluster-scoped kind the fence does not allow, fails the base. The namespace of its namespaced
   * objects is the Kustomize binding's (its {@code namespace:}, from the pattern planning checked);
   * what kustomize generates or fetches is not known to the hub until it is built.
   */
  static void checkBase(Unit unit) {
    TenantFence fence = unit.fence().toProto();
    List<Object> objects = new ArrayList<>();
    List<String> origins = new ArrayList<>();
    for (Map.Entry<String, String> f : new TreeMap<>(unit.files()).entrySet()) {
      try {
        for (Object doc : Yaml.readAll(f.getValue())) {
          objects.add(doc);
          origins.add(f.getKey());
        }
      } catch (JsonProcessingException | RuntimeException e) {
        // kustomize reads it, or refuses it, when the binding is built
      }
    }
    Map<String, Boolean> crds = crdScopes(objects);
    for (int i = 0; i < objects.size(); i++) {
      if (!(objects.get(i) instanceof Map<?, ?> object)
          || !(object.get("apiVersion") instanceof String apiVersion)
          || !(object.get("kind") instanceof String kind)) {
        continue;
      }
      String name = String.valueOf(metadata(Values.asMap(object)).get("name"));
      Boolean namespaced =
          KindScopes.namespaced(apiVersion, kind)
              .orElse(crds.get(KindScopes.group(apiVersion) + "/" + kind));
      String refusal = null;
      if (Boolean.FALSE.equals(namespaced)) {
        refusal = TenantFences.objectRefusal(fence, apiVersion, kind, name, "", false);
      } else {
        for (String entry : fence.getDeniedKindsList()) {
          if (TenantFences.kindMatches(entry, KindScopes.group(apiVersion), kind)) {
            refusal =
                kind
                    + " "
                    + name
                    + ": kind "
                    + kind
                    + " is denied by the project's fence ("
                    + entry
                    + ")";
            break;
          }
        }
      }
      if (refusal != null) {
        throw new RenderException(
            "cannot render " + Renderer.describe(unit) + ": " + origins.get(i) + ": " + refusal);
      }
    }
  }

  // ---------------------------------------------------------------- overlays

  /**
   * The fields an overlay's patch may not touch: what an object is and where it goes. Changing them
   * would turn a bundle's object into another (a RoleBinding into a ClusterRoleBinding) or move it
   * out of its namespace.
   */
  public static final List<String> FIXED_FIELDS =
      List.of("kind", "apiVersion", "metadata.name", "metadata.namespace");

  /** The fixed fields ({@link #FIXED_FIELDS}) a patch touches, in that order. */
  public static List<String> fixedFieldsTouched(Map<String, Object> patch) {
    List<String> touched = new ArrayList<>();
    if (patch == null) {
      return touched;
    }
    Map<?, ?> metadata = patch.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    for (String field : FIXED_FIELDS) {
      boolean present =
          field.startsWith("metadata.")
              ? metadata.containsKey(field.substring("metadata.".length()))
                  || (patch.containsKey("metadata") && !(patch.get("metadata") instanceof Map))
              : patch.containsKey(field);
      if (present) {
        touched.add(field);
      }
    }
    return touched;
  }

  // ---------------------------------------------------------------- Helm text

  private static final Pattern METADATA = Pattern.compile("(?m)^metadata:[ \\t]*(#.*)?$");
  private static final Pattern KEY_LINE = Pattern.compile("^([ \\t]+)([A-Za-z0-9_.\"'-]+):(.*)$");

  /**
   * Helm's text of one object with {@code namespace: <namespace>} written into its metadata, right
   * after its name, every other character as Helm printed it. When the metadata is not written the
   * way Helm writes it (a flow mapping, an unusual layout), the object is written again as YAML
   * below the document's leading comments (its {@code # Source:} line).
   */
  static String withNamespace(String doc, Map<String, Object> object, String namespace) {
    String inserted = insert(doc, namespace);
    Map<String, Object> expected = withNamespace(object, namespace);
    if (inserted != null) {
      try {
        List<Object> parsed = Yaml.readAll(inserted);
        if (parsed.size() == 1 && Objects.equals(parsed.get(0), expected)) {
          return inserted;
        }
      } catch (JsonProcessingException e) {
        // fall through to writing it again
      }
    }
    StringBuilder b = new StringBuilder();
    for (String line : doc.split("\n", -1)) {
      if (!line.startsWith("#")) {
        break;
      }
      b.append(line).append('\n');
    }
    return b.append(Yaml.write(expected)).toString();
  }

  private static String insert(String doc, String namespace) {
    Matcher m = METADATA.matcher(doc);
    if (!m.find()) {
      return null;
    }
    int lineEnd = doc.indexOf('\n', m.end());
    if (lineEnd < 0) {
      return null;
    }
    String[] lines = doc.substring(lineEnd + 1).split("\n", -1);
    String indent = null;
    int offset = lineEnd + 1;
    int insertAt = -1;
    for (String line : lines) {
      int next = offset + line.length() + 1;
      if (line.isBlank() || line.stripLeading().startsWith("#")) {
        offset = next;
        continue;
      }
      Matcher key = KEY_LINE.matcher(line);
      if (!key.matches() || (indent != null && !line.startsWith(indent))) {
        break;
      }
      if (indent == null) {
        indent = key.group(1);
        insertAt = offset;
      }
      if (key.group(1).equals(indent) && key.group(2).equals("name")) {
        insertAt = next;
        break;
      }
      offset = next;
    }
    if (indent == null) {
      return null;
    }
    String line = indent + "namespace: " + namespace;
    if (insertAt > doc.length()) {
      return doc + "\n" + line;
    }
    return doc.substring(0, insertAt) + line + "\n" + doc.substring(insertAt);
  }

  /** The object with metadata.namespace set right after metadata.name. */
  static Map<String, Object> withNamespace(Map<String, Object> object, String namespace) {
    Map<String, Object> newMetadata = new LinkedHashMap<>();
    boolean placed = false;
    for (Map.Entry<?, ?> e : metadata(object).entrySet()) {
      if (e.getKey().equals("namespace")) {
        continue;
      }
      newMetadata.put(String.valueOf(e.getKey()), e.getValue());
      if (e.getKey().equals("name")) {
        newMetadata.put("namespace", namespace);
        placed = true;
      }
    }
    if (!placed) {
      newMetadata.put("namespace", namespace);
    }
    Map<String, Object> out = new LinkedHashMap<>(object);
    out.put("metadata", newMetadata);
    return out;
  }
}
