package dev.gitopshq.agent.v1;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The names of the runtime adapter objects the agent makes for a binding (AdapterBinding), known to
 * the hub too: it names the deploy token's Secret, and shows operators what to look for.
 */
public final class AdapterNames {
  private AdapterNames() {}

  /**
   * A DNS-1123 label from parts: {@code gitopshq-<parts>}, shortened with a hash of the whole when
   * longer than 63 characters (a Kustomization's name is also a label value).
   */
  public static String name(String... parts) {
    String full = "gitopshq-" + String.join("-", parts).toLowerCase().replaceAll("[^a-z0-9-]", "-");
    if (full.length() <= 63) {
      return full;
    }
    String head = full.substring(0, 52);
    while (head.endsWith("-")) {
      head = head.substring(0, head.length() - 1);
    }
    return head + "-" + sha256(full).substring(0, 10);
  }

  /**
   * The Secret holding a project's deploy token for an adapter ({@code flux} or {@code argocd}).
   */
  public static String credential(String project, String adapter) {
    return name(project, adapter.equals("argocd") ? "repo" : "git");
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
