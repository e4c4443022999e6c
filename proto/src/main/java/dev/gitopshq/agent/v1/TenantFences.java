package dev.gitopshq.agent.v1;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a {@link TenantFence} allows. The hub checks every object a delivery generation writes, the
 * agent every object of a direct apply before it applies anything, and both answer the same way
 * because both ask this class: {@code null} when the fence allows it, otherwise a sentence saying
 * what the fence refuses.
 *
 * <p>A fence is set per project by the organization's admins. Its rules:
 *
 * <ul>
 *   <li><b>Namespaces.</b> An object goes only into a namespace that an entry of {@code
 *       allowed_namespaces} matches ({@code *} is any run of characters); with no entries, into any
 *       namespace but the {@linkplain #RESERVED_NAMESPACES reserved ones}. A reserved namespace is
 *       allowed only when an entry names it exactly, never through a {@code *}.
 *   <li><b>Cluster-scoped kinds</b> are refused unless {@code cluster_scoped_kinds} lists them. A
 *       {@code Namespace} object is the exception: it is allowed when the namespace it creates is.
 *   <li><b>Denied kinds</b> are refused whatever their scope. The default denies RBAC and admission
 *       control ({@link #DEFAULT_DENIED_KINDS}), so a project cannot grant itself permissions or
 *       intercept other tenants' requests.
 * </ul>
 *
 * <p>A kind entry is {@code Kind} (that kind in every group), {@code group/Kind} ({@code /Kind} for
 * the core group) or {@code group/*}.
 */
public final class TenantFences {
  /** Namespaces no {@code *} reaches: the control plane's and the runtime adapters'. */
  public static final List<String> RESERVED_NAMESPACES =
      List.of("kube-system", "kube-public", "kube-node-lease", "flux-system", "argocd");

  /** What a project may not deliver unless an admin says otherwise: RBAC and admission. */
  public static final List<String> DEFAULT_DENIED_KINDS =
      List.of("rbac.authorization.k8s.io/*", "admissionregistration.k8s.io/*");

  /** The fence of a project whose admins set none. */
  public static final TenantFence DEFAULT =
      TenantFence.newBuilder().addAllDeniedKinds(DEFAULT_DENIED_KINDS).build();

  /** The most entries one list of a fence may hold. */
  public static final int MAX_ENTRIES = 100;

  private static final Set<String> RESERVED = Set.copyOf(RESERVED_NAMESPACES);
  private static final Pattern NAMESPACE_ENTRY = Pattern.compile("[a-z0-9*]([-a-z0-9*]{0,62})?");
  private static final Pattern GROUP = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final Pattern KIND = Pattern.compile("[A-Z][A-Za-z0-9]{0,62}");

  private TenantFences() {}

  /** {@code null} when the fence lets a project deliver into {@code namespace}, else why not. */
  public static String namespaceRefusal(TenantFence fence, String namespace) {
    boolean reserved = RESERVED.contains(namespace);
    if (fence.getAllowedNamespacesCount() == 0) {
      return reserved
          ? "namespace "
              + namespace
              + " is reserved ("
              + String.join(", ", RESERVED_NAMESPACES)
              + "); the project's fence must name it to allow it"
          : null;
    }
    for (String entry : fence.getAllowedNamespacesList()) {
      if (entry.equals(namespace) || (!reserved && glob(entry, namespace))) {
        return null;
      }
    }
    return "namespace "
        + namespace
        + " is outside the project's fence (allowed: "
        + String.join(", ", fence.getAllowedNamespacesList())
        + (reserved ? "; a reserved namespace must be named exactly" : "")
        + ")";
  }

  /**
   * {@code null} when the fence lets a project deliver this object, else why not.
   *
   * @param namespace the object's namespace; empty for a cluster-scoped object
   * @param namespaced whether the kind is namespaced
   */
  public static String objectRefusal(
      TenantFence fence,
      String apiVersion,
      String kind,
      String name,
      String namespace,
      boolean namespaced) {
    String group = KindScopes.group(apiVersion);
    String what = kind + " " + (namespaced ? namespace + "/" : "") + name;
    for (String entry : fence.getDeniedKindsList()) {
      if (kindMatches(entry, group, kind)) {
        return what + ": kind " + kind + " is denied by the project's fence (" + entry + ")";
      }
    }
    if (namespaced) {
      String why = namespaceRefusal(fence, namespace);
      return why == null ? null : what + ": " + why;
    }
    if (group.isEmpty() && kind.equals("Namespace")) {
      String why = namespaceRefusal(fence, name);
      return why == null ? null : what + ": " + why;
    }
    for (String entry : fence.getClusterScopedKindsList()) {
      if (kindMatches(entry, group, kind)) {
        return null;
      }
    }
    return what
        + ": cluster-scoped kind "
        + (group.isEmpty() ? kind : group + "/" + kind)
        + " is not allowed by the project's fence (it allows "
        + (fence.getClusterScopedKindsCount() == 0
            ? "no cluster-scoped kinds"
            : String.join(", ", fence.getClusterScopedKindsList()))
        + ")";
  }

  /** Whether a kind entry ({@code Kind}, {@code group/Kind}, {@code group/*}) covers a kind. */
  public static boolean kindMatches(String entry, String group, String kind) {
    int slash = entry.indexOf('/');
    if (slash < 0) {
      return entry.equals(kind);
    }
    String entryGroup = entry.substring(0, slash);
    String entryKind = entry.substring(slash + 1);
    return entryGroup.equals(group) && (entryKind.equals("*") || entryKind.equals(kind));
  }

  /** {@code null} for a valid namespace entry, else what is wrong with it. */
  public static String namespaceEntryProblem(String entry) {
    if (entry == null || !NAMESPACE_ENTRY.matcher(entry).matches() || entry.endsWith("-")) {
      return "'"
          + entry
          + "' is not a namespace or pattern: lowercase letters, digits, '-' and '*', at most 63"
          + " characters, not ending with '-'";
    }
    return null;
  }

  /** {@code null} for a valid kind entry, else what is wrong with it. */
  public static String kindEntryProblem(String entry) {
    if (entry == null || entry.isEmpty()) {
      return "a kind entry must not be empty";
    }
    int slash = entry.indexOf('/');
    String group = slash < 0 ? null : entry.substring(0, slash);
    String kind = slash < 0 ? entry : entry.substring(slash + 1);
    boolean groupOk = group == null || group.isEmpty() || GROUP.matcher(group).matches();
    boolean kindOk = KIND.matcher(kind).matches() || (group != null && kind.equals("*"));
    if (!groupOk || !kindOk) {
      return "'"
          + entry
          + "' is not a kind entry: Kind, group/Kind, /Kind (the core group) or group/*";
    }
    return null;
  }

  /** {@code *} matches any run of characters (none included); everything else itself. */
  static boolean glob(String pattern, String text) {
    int p = 0;
    int t = 0;
    int star = -1;
    int mark = 0;
    while (t < text.length()) {
      if (p < pattern.length() && pattern.charAt(p) == text.charAt(t)) {
        p++;
        t++;
      } else if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        mark = t;
      } else if (star >= 0) {
        p = star + 1;
        t = ++mark;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }
}
