package dev.gitopshq.activities.delivery;

/**
 * The two kinds of reusable file sets a binding can apply: manifest bundles (raw Kubernetes YAML)
 * and Kustomize bases. They share one table shape; {@link #getTable()} names the table.
 */
public enum SourceKind {
  MANIFESTS("manifest_bundles", "manifests", "manifest bundle"),
  KUSTOMIZE("kustomize_bases", "kustomize", "Kustomize base");

  private final String table;
  private final String bindingKind;
  private final String label;

  SourceKind(String table, String bindingKind, String label) {
    this.table = table;
    this.bindingKind = bindingKind;
    this.label = label;
  }

  /** The table, for the mapper's {@code ${kind.table}}; a constant, never user input. */
  public String getTable() {
    return table;
  }

  /** The value of {@code bindings.kind} for bindings of this source kind. */
  public String bindingKind() {
    return bindingKind;
  }

  /** {@link #bindingKind()} as a bean property, for mapper parameters. */
  public String getBindingKind() {
    return bindingKind;
  }

  /** How people call it, e.g. {@code manifest bundle}. */
  public String label() {
    return label;
  }

  /** The source kind a binding kind applies, if any. */
  public static SourceKind ofBindingKind(String kind) {
    for (SourceKind k : values()) {
      if (k.bindingKind.equals(kind)) {
        return k;
      }
    }
    return null;
  }
}
