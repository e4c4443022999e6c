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
 * <p>The rules {@value #VERSION_RULE} and {@value #SHA_RULE} are reserved: every published version
 * gets {@code gitopshq_policy_version := <N>} and {@code gitopshq_policy_sha256 := "<hex>"} (the
 * SHA-256 of the stored text) appended, so each decision OPA returns for the package carries the
 * version and the text hash that produced it, read in the same evaluation.
 *
 * <p>Built-ins that reach outside OPA ({@code banned-builtins.txt} beside this class: {@code
 * http.send}, {@code net.lookup_ip_addr}, {@code opa.runtime}) are refused, naming the built-in and
 * the line; the OPA the hub runs does not have them either (tools/opa/main.go).
 */
public final class PolicyText {
  /** The rule the hub appends; policy authors must not define it. */
  public static final String VERSION_RULE = "gitopshq_policy_version";

  /** The rule with the SHA-256 of the stored text, appended like {@link #VERSION_RULE}. */
  public static final String SHA_RULE = "gitopshq_policy_sha256";

  /** The built-ins no policy may call, from {@code banned-builtins.txt}. */
  public static final List<String> BANNED_BUILTINS = loadBanned();

  /** The most Rego one version may hold, in characters. */
  public static final int MAX_LENGTH = 512 * 1024;

  /** RFC 1123 label, at most 63 characters. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final Pattern PACKAGE =
      Pattern.compile("^[ \\t]*package[ \\t]+([^\\s#]+)", Pattern.MULTILINE);
  private static final Pattern BANNED_CALL =
      Pattern.compile(
          "(?<![A-Za-z0-9_.])("
              + String.join("|", BANNED_BUILTINS.stream().map(Pattern::quote).toList())
              + ")\\s*\\(");

  private PolicyText() {}

  /** The OPA policy id a policy is uploaded as: {@code gitopshq/<name>}. */
  public static String opaPolicyId(String name) {
    return "gitopshq/" + name;
  }

  /** The Rego package a policy must declare, in the form to show people. */
  public static String expectedPackage(String name) {
    return IDENTIFIER.matcher(name).matches() ? "gitopshq." + name : "gitopshq[\"" + name + "\"]";
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
    for (String rule : List.of(VERSION_RULE, SHA_RULE)) {
      if (definesRule(rego, rule)) {
        out.add(
            new InvalidPolicyException.Problem(
                "rego",
                "must not define "
                    + rule
                    + ": the hub appends that rule with the version and text hash when it"
                    + " publishes"));
      }
    }
    Matcher call = BANNED_CALL.matcher(code(rego));
    while (call.find()) {
      int line = 1 + (int) rego.substring(0, call.start()).chars().filter(c -> c == '\n').count();
      out.add(
          new InvalidPolicyException.Problem(
              "rego",
              "line "
                  + line
                  + ": calls the built-in "
                  + call.group(1)
                  + ", which reaches outside OPA (the network, DNS or OPA's own environment);"
                  + " policies may not use it"));
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
   * The module as uploaded to OPA: the stored text and two appended lines, {@code
   * gitopshq_policy_version := <version>} and {@code gitopshq_policy_sha256 := "<sha256 of the
   * stored text>"}. Appending keeps every line and column of the author's text where it was, so
   * OPA's error locations point into what the author wrote.
   */
  public static String forOpa(String rego, int version) {
    StringBuilder b = new StringBuilder(rego.length() + 140).append(rego);
    if (!rego.endsWith("\n")) {
      b.append('\n');
    }
    b.append(VERSION_RULE).append(" := ").append(version).append('\n');
    return b.append(SHA_RULE).append(" := \"").append(sha256(rego)).append("\"\n").toString();
  }

  private static boolean definesRule(String rego, String rule) {
    return Pattern.compile(
            "^[ \\t]*(default[ \\t]+)?" + rule + "(?![A-Za-z0-9_])", Pattern.MULTILINE)
        .matcher(rego)
        .find();
  }

  /**
   * The text with comments and string literals blanked out (newlines kept), so a built-in's name in
   * a comment or a string is not taken for a call.
   */
  static String code(String rego) {
    StringBuilder b = new StringBuilder(rego.length());
    int i = 0;
    int n = rego.length();
    while (i < n) {
      char c = rego.charAt(i);
      if (c == '#') {
        while (i < n && rego.charAt(i) != '\n') {
          b.append(' ');
          i++;
        }
      } else if (c == '"' || c == '`') {
        char end = c;
        b.append(' ');
        i++;
        while (i < n && rego.charAt(i) != end) {
          char d = rego.charAt(i);
          if (end == '"' && d == '\\' && i + 1 < n) {
            b.append("  ");
            i += 2;
            continue;
          }
          b.append(d == '\n' ? '\n' : ' ');
          i++;
        }
        if (i < n) {
          b.append(' ');
          i++;
        }
      } else {
        b.append(c);
        i++;
      }
    }
    return b.toString();
  }

  private static List<String> loadBanned() {
    try (var in = PolicyText.class.getResourceAsStream("banned-builtins.txt")) {
      if (in == null) {
        throw new IllegalStateException("banned-builtins.txt is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .toList();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read banned-builtins.txt", e);
    }
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
