package dev.gitopshq.activities.policy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rules for policy names and texts, and the line the hub appends when publishing.
 *
 * <p>A policy named {@code approval} is the Rego module of package {@code gitopshq.approval}. Names
 * with '-' (or a leading digit) are not Rego identifiers, so their package is written {@code
 * gitopshq["my-policy"]}.
 *
 * <p><b>Organizations.</b> One OPA serves every organization, each in a namespace of its own: the
 * hub uploads organization {@code O}'s policy {@code approval} as OPA policy id {@code
 * orgs/<O>/gitopshq/approval}, with its package rewritten to {@code org_<O's 32
 * hex>.gitopshq.approval} and every {@code data.gitopshq…} and {@code data.gitopshq_data…}
 * reference in its code rewritten to {@code data.org_<hex>.gitopshq…} and {@code
 * data.org_<hex>.gitopshq_data…} ({@link #forOpa}). Authors write, test and read plain {@code
 * gitopshq} paths; what they publish cannot see or change another organization's modules or data,
 * since any other reference to {@code data} is refused. Only the package line and those references
 * change, so every line keeps its number in OPA's error messages.
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

  /**
   * The one rule a decision asks OPA for, appended like {@link #VERSION_RULE}: {@code {"version",
   * "sha256", "decision"}}, without {@code decision} when the policy decides nothing for the input.
   * Asking for it evaluates the {@code decision} rule and two constants, not every rule of the
   * package.
   */
  public static final String RESULT_RULE = "gitopshq_result";

  /** The built-ins no policy may call, from {@code banned-builtins.txt}. */
  public static final List<String> BANNED_BUILTINS = loadBanned();

  /** The most Rego one version may hold, in characters. */
  public static final int MAX_LENGTH = 512 * 1024;

  /** RFC 1123 label, at most 63 characters. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final Pattern PACKAGE =
      Pattern.compile("^[ \\t]*package[ \\t]+([^\\s#]+)", Pattern.MULTILINE);

  /** The root document {@code data}, not as a field of something else ({@code input.data}). */
  private static final Pattern DATA_ROOT =
      Pattern.compile("(?<![A-Za-z0-9_.])data(?![A-Za-z0-9_])");

  /** The references to {@code data} a policy may make: its organization's own documents. */
  private static final Pattern OWN_DATA =
      Pattern.compile("\\s*\\.\\s*(gitopshq|gitopshq_data)(?![A-Za-z0-9_])");

  private static final Pattern BANNED_CALL =
      Pattern.compile(
          "(?<![A-Za-z0-9_.])("
              + String.join("|", BANNED_BUILTINS.stream().map(Pattern::quote).toList())
              + ")\\s*\\(");

  private PolicyText() {}

  /** The root of an organization's documents in OPA: {@code org_<32 hex>}. */
  public static String orgRoot(UUID orgId) {
    return "org_" + orgId.toString().replace("-", "");
  }

  /** The OPA policy id a policy is uploaded as: {@code orgs/<org id>/gitopshq/<name>}. */
  public static String opaPolicyId(UUID orgId, String name) {
    return idPrefix(orgId) + "gitopshq/" + name;
  }

  /** The start of every OPA policy id of an organization. */
  public static String idPrefix(UUID orgId) {
    return "orgs/" + orgId + "/";
  }

  /** Where a policy's package is evaluated: {@code org_<hex>/gitopshq/<name>}. */
  public static String packagePath(UUID orgId, String name) {
    return orgRoot(orgId) + "/gitopshq/" + name;
  }

  /**
   * Where an organization's data document {@code name} lives: {@code org_<hex>/gitopshq_data/…}.
   */
  public static String dataPath(UUID orgId, String name) {
    return orgRoot(orgId) + "/gitopshq_data/" + name;
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
    for (String rule : List.of(VERSION_RULE, SHA_RULE, RESULT_RULE)) {
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
    String code = code(rego);
    Matcher data = DATA_ROOT.matcher(code);
    while (data.find()) {
      if (!OWN_DATA.matcher(code).region(data.end(), code.length()).lookingAt()) {
        out.add(
            new InvalidPolicyException.Problem(
                "rego",
                "line "
                    + line(rego, data.start())
                    + ": refers to data outside the organization's documents; a policy may read"
                    + " only data.gitopshq.<policy> and data.gitopshq_data.<document>"));
      }
    }
    Matcher call = BANNED_CALL.matcher(code);
    while (call.find()) {
      out.add(
          new InvalidPolicyException.Problem(
              "rego",
              "line "
                  + line(rego, call.start())
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

  private static int line(String text, int offset) {
    return 1 + (int) text.substring(0, offset).chars().filter(c -> c == '\n').count();
  }

  /**
   * The module as uploaded to OPA for an organization: the stored text placed in the organization's
   * namespace (its package and its {@code data.gitopshq}/{@code data.gitopshq_data} references
   * under {@link #orgRoot}), and three appended lines, {@code gitopshq_policy_version :=
   * <version>}, {@code gitopshq_policy_sha256 := "<sha256 of the stored text>"} and {@link
   * #RESULT_RULE}, which reads the package's {@code decision} by its full path (so a policy without
   * one still compiles). Every line of the author's text keeps its number, so OPA's error locations
   * point into what the author wrote.
   */
  public static String forOpa(UUID orgId, String rego, int version) {
    return withResult(inNamespace(orgId, rego, orgRoot(orgId)), rego, version);
  }

  /** The root of a what-if's scratch package: {@code gitopshq_whatif_<token>}. */
  public static String scratchRoot(String token) {
    return "gitopshq_whatif_" + token;
  }

  /**
   * A draft as uploaded for a what-if: like {@link #forOpa} with version 0, but its package is
   * {@code gitopshq_whatif_<token>.org_<hex>.gitopshq.<name>}, a root no decision reads, so it
   * never merges with the published module. Its references to the organization's documents stay the
   * organization's (the published policies and data).
   */
  public static String forScratch(UUID orgId, String token, String rego) {
    return withResult(inNamespace(orgId, rego, scratchRoot(token) + "." + orgRoot(orgId)), rego, 0);
  }

  private static String withResult(String placed, String rego, int version) {
    String sha = sha256(rego);
    StringBuilder b = new StringBuilder(placed.length() + 400).append(placed);
    if (!rego.endsWith("\n")) {
      b.append('\n');
    }
    b.append(VERSION_RULE).append(" := ").append(version).append('\n');
    b.append(SHA_RULE).append(" := \"").append(sha).append("\"\n");
    String constants = "\"version\": " + version + ", \"sha256\": \"" + sha + "\"";
    String declared = declaredPackage(placed);
    return b.append(RESULT_RULE)
        .append(" := {")
        .append(constants)
        .append(", \"decision\": d} if { d := data.")
        .append(declared)
        .append(".decision } else := {")
        .append(constants)
        .append("}\n")
        .toString();
  }

  private static boolean definesRule(String rego, String rule) {
    return Pattern.compile(
            "^[ \\t]*(default[ \\t]+)?" + rule + "(?![A-Za-z0-9_])", Pattern.MULTILINE)
        .matcher(rego)
        .find();
  }

  /**
   * The text with comments and string literals blanked out (newlines kept), so a built-in's name in
   * a comment or a string is not taken for a call. The expressions inside template strings ({@code
   * $"... {expr} ..."} and {@code $`... {expr} ...`}) are code and stay; the template's text and
   * its braces are blanked.
   */
  static String code(String rego) {
    char[] out = rego.toCharArray();
    scanCode(rego, out, 0, false);
    return new String(out);
  }

  /**
   * Blanks the comments and strings of the code from {@code i}. Inside a template's braces ({@code
   * nested}) it stops at the brace that closes them and returns its index; else at the end.
   */
  private static int scanCode(String s, char[] out, int i, boolean nested) {
    int n = s.length();
    int depth = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '#') {
        while (i < n && s.charAt(i) != '\n') {
          out[i++] = ' ';
        }
      } else if (c == '"' || c == '`') {
        i = blankString(s, out, i);
      } else if (c == '$' && i + 1 < n && (s.charAt(i + 1) == '"' || s.charAt(i + 1) == '`')) {
        i = blankTemplate(s, out, i);
      } else if (nested && c == '{') {
        depth++;
        i++;
      } else if (nested && c == '}') {
        if (depth == 0) {
          return i;
        }
        depth--;
        i++;
      } else {
        i++;
      }
    }
    return n;
  }

  /** Blanks the string starting at {@code i} ({@code "..."} with escapes, or raw {@code `...`}). */
  private static int blankString(String s, char[] out, int i) {
    int n = s.length();
    char end = s.charAt(i);
    blank(out, i++);
    while (i < n && s.charAt(i) != end) {
      if (end == '"' && s.charAt(i) == '\\' && i + 1 < n) {
        blank(out, i++);
      }
      blank(out, i++);
    }
    if (i < n) {
      blank(out, i++);
    }
    return i;
  }

  /**
   * Blanks the template string starting at the {@code $} at {@code i}, keeping the code in its
   * braces. In {@code $"..."} a backslash escapes the next character; in {@code $`...`} it escapes
   * only an opening brace (as OPA reads them).
   */
  private static int blankTemplate(String s, char[] out, int i) {
    int n = s.length();
    char end = s.charAt(i + 1);
    blank(out, i++);
    blank(out, i++);
    while (i < n && s.charAt(i) != end) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < n && (end == '"' || s.charAt(i + 1) == '{')) {
        blank(out, i++);
        blank(out, i++);
      } else if (c == '{') {
        blank(out, i++);
        i = scanCode(s, out, i, true);
        if (i < n) {
          blank(out, i++);
        }
      } else {
        blank(out, i++);
      }
    }
    if (i < n) {
      blank(out, i++);
    }
    return i;
  }

  private static void blank(char[] out, int i) {
    if (out[i] != '\n') {
      out[i] = ' ';
    }
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
    } catch (IOException e) {
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

  /**
   * The text with its package and its references to the organization's documents moved under the
   * organization's root. Comments and strings are left as they are.
   */
  static String inNamespace(UUID orgId, String rego) {
    return inNamespace(orgId, rego, orgRoot(orgId));
  }

  /** As {@link #inNamespace(UUID, String)}, the package placed under {@code packageRoot}. */
  private static String inNamespace(UUID orgId, String rego, String packageRoot) {
    String root = orgRoot(orgId);
    String code = code(rego);
    StringBuilder out = new StringBuilder(rego.length() + 256);
    int at = 0;
    Matcher pkg = PACKAGE.matcher(code);
    int pkgStart = pkg.find() ? pkg.start(1) : -1;
    Matcher data = DATA_ROOT.matcher(code);
    List<Integer> inserts = new ArrayList<>();
    if (pkgStart >= 0) {
      inserts.add(pkgStart);
    }
    while (data.find()) {
      Matcher own = OWN_DATA.matcher(code).region(data.end(), code.length());
      if (own.lookingAt()) {
        // data.gitopshq... -> data.org_<hex>.gitopshq...: insert before the first segment.
        inserts.add(own.start(1));
      }
    }
    Collections.sort(inserts);
    for (int i : inserts) {
      out.append(rego, at, i).append(i == pkgStart ? packageRoot : root).append('.');
      at = i;
    }
    return out.append(rego, at, rego.length()).toString();
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
