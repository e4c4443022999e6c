package dev.gitopshq.hub.policy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The default policies shipped in the gitopshq-policies jar: {@code policies/gitopshq/<name>/
 * <file>.rego}, one module per directory, tests excluded. The directory name is the policy's name.
 */
public final class ShippedPolicies {
  /** Where the policies module puts the Rego in its jar (see policies/pom.xml). */
  static final String PATTERN = "classpath*:policies/gitopshq/*/*.rego";

  private static final Pattern NAME = Pattern.compile("policies/gitopshq/([^/]+)/([^/]+\\.rego)$");

  private final Map<String, String> byName;

  public ShippedPolicies(Map<String, String> byName) {
    this.byName = Collections.unmodifiableMap(new TreeMap<>(byName));
  }

  /** Policy name to Rego text, by name. */
  public Map<String, String> byName() {
    return byName;
  }

  /** Reads the shipped policies from the classpath; fails when a directory holds two modules. */
  public static ShippedPolicies fromClasspath() {
    Map<String, String> found = new TreeMap<>();
    Map<String, String> source = new TreeMap<>();
    try {
      for (Resource r : new PathMatchingResourcePatternResolver().getResources(PATTERN)) {
        String url = r.getURL().toString();
        Matcher m = NAME.matcher(url);
        if (!m.find() || m.group(2).endsWith("_test.rego")) {
          continue;
        }
        String name = m.group(1);
        if (found.containsKey(name) && !source.get(name).equals(m.group(2))) {
          throw new IllegalStateException(
              "shipped policy '"
                  + name
                  + "' has two modules ("
                  + source.get(name)
                  + ", "
                  + m.group(2)
                  + "); a policy is one module: merge them");
        }
        try (InputStream in = r.getInputStream()) {
          found.putIfAbsent(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
          source.putIfAbsent(name, m.group(2));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the shipped policies from the classpath", e);
    }
    return new ShippedPolicies(found);
  }
}
