package dev.gitopshq.activities.policy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rules for policy names and texts, and the line the hub appends when publishing.
 *
 * <p>A policy named {@code approval} is the Rego module of package {@code gitopshq.approval},
 * uploaded to OPA as policy id {@code gitopshq/approval}. Names with '-' (or a leading digit) are
 * not Rego identifiers, so their package is written {@code gitopshq["my-policy"]}.
 *
 * <p>The rule {@value #VERSION_RULE} is reserved: every published version gets {@code
 * gitopshq_policy_version := <N>} appended as its last line, so each decision OPA returns for the
 * package carries the version that produced it, read in the same evaluation.
 */
public final class PolicyText {
  /** The rule the hub appends; policy authors must not define it. */
  public static final String VERSION_RULE = "gitopshq_policy_version";

  /** The most Rego one version may hold, in characters. */
  public static final int MAX_LENGTH = 512 * 1024;

  /** RFC 1123 label, at most 63 characters. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final Pattern PACKAGE =
      Pattern.compile("^[ \\t]*package[ \\t]+([^\\s#]+)", Pattern.MULTILINE);
  private static final Pattern DEFINES_VERSION_RULE =
      Pattern.compile(
          "^[ \\t]*(default[ \\t]+)?" + VERSION_RULE + "(?![A-Za-z0-9_])", Pattern.MULTILINE);

  private PolicyText() {}

  /** The OPA policy id a policy is uploaded as: {@code gitopshq/<name>}. */
  public static String opaPolicyId(String name) {
    return "gitopshq/" + name;
  }

  /** The Rego package a policy must declare, in the form to show people. */
  public static String expectedPackage(String name) {
    return IDENTIFIER.matcher(name).matches()
        ? "gitopshq." + name
        : "gitopshq[\"" + name + "\"]";
  }

  /** Everything wrong with a name and text, in order; empty when the policy may be uploaded. */
  public static List<InvalidPolicyException.Problem> problems(String name, String rego) {
    List<InvalidPolicyException.Problem> out = new ArrayList<>();
    boolean nameOk = name != null && NAME.matcher(name).matches();
    if (!nameOk) {
      out.add(
          new InvalidPolicyException.Problem(
              "name",
              "must be an RFC 1123 label: 1-63 lowercase letters, digits and '-', starting and"
                  + " ending with a letter or digit"));
    }
    if (rego == null || rego.isBlank()) {
      out.add(new InvalidPolicyException.Problem("rego", "is required"));
      return out;
    }
    if (rego.length() > MAX_LENGTH) {
      out.add(
          new InvalidPolicyException.Problem(
              "rego", "must be at most " + MAX_LENGTH + " characters (got " + rego.length() + ")"));
      return out;
    }
    if (rego.indexOf('\0') >= 0) {
      out.add(new InvalidPolicyException.Problem("rego", "must not contain NUL characters"));
    }
    // The package is checked only against a valid name: an invalid name has no package.
    if (nameOk) {
      String declared = declaredPackage(rego);
      if (declared == null) {
        out.add(
            new InvalidPolicyException.Problem(
                "rego", "must declare 'package " + expectedPackage(name) + "'"));
      } else if (!acceptedPackages(name).contains(declared)) {
        out.add(
            new InvalidPolicyException.Problem(
                "rego",
                "must declare 'package "
                    + expectedPackage(name)
                    + "' (the policy's name decides its package), not 'package "
                    + declared
                    + "'"));
      }
    }
    if (DEFINES_VERSION_RULE.matcher(rego).find()) {
      out.add(
          new InvalidPolicyException.Problem(
              "rego",
              "must not define "
                  + VERSION_RULE
                  + ": the hub appends that rule with the version number when it publishes"));
    }
    return out;
  }

  /** Throws {@link InvalidPolicyException} listing every problem, if there is one. */
  public static void requireValid(String name, String rego) {
    List<InvalidPolicyException.Problem> problems = problems(name, rego);
    if (!problems.isEmpty()) {
      throw new InvalidPolicyException(problems);
    }
  }

  /**
   * The module as uploaded to OPA: the stored text and one appended line, {@code
   * gitopshq_policy_version := <version>}. Appending keeps every line and column of the author's
   * text where it was, so OPA's error locations point into what the author wrote.
   */
  public static String withVersion(String rego, int version) {
    StringBuilder b = new StringBuilder(rego.length() + 40).append(rego);
    if (!rego.endsWith("\n")) {
      b.append('\n');
    }
    return b.append(VERSION_RULE).append(" := ").append(version).append('\n').toString();
  }

  /** The SHA-256 of the text (UTF-8), lowercase hex: what the audit log records instead of it. */
  public static String sha256(String rego) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(rego.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  private static String declaredPackage(String rego) {
    Matcher m = PACKAGE.matcher(rego);
    return m.find() ? m.group(1) : null;
  }

  private static List<String> acceptedPackages(String name) {
    List<String> accepted = new ArrayList<>();
    accepted.add("gitopshq[\"" + name + "\"]");
    if (IDENTIFIER.matcher(name).matches()) {
      accepted.add("gitopshq." + name);
    }
    return accepted;
  }
}
