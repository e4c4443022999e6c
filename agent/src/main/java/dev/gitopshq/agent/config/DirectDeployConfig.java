package dev.gitopshq.agent.config;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the agent applies releases in direct-deploy mode (the chart's {@code directDeploy.*} values),
 * read from environment variables.
 *
 * @param fieldManager the server-side apply field manager ({@code directDeploy.fieldManager})
 * @param defaultNamespace the namespace of namespaced objects whose file names none ({@code
 *     directDeploy.defaultNamespace}); empty: such an object fails
 */
public record DirectDeployConfig(String fieldManager, String defaultNamespace) {
  /** The server-side apply field manager; default {@link #DEFAULT_FIELD_MANAGER}. */
  public static final String FIELD_MANAGER = "GITOPSHQ_DIRECT_DEPLOY_FIELD_MANAGER";

  /** The namespace for namespaced objects whose file names none; default none. */
  public static final String DEFAULT_NAMESPACE = "GITOPSHQ_DIRECT_DEPLOY_DEFAULT_NAMESPACE";

  public static final String DEFAULT_FIELD_MANAGER = "gitopshq-agent";

  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  /** A field manager is a printable ASCII string of at most 128 characters. */
  private static final Pattern MANAGER = Pattern.compile("^[\\x21-\\x7e]{1,128}$");

  /** The defaults: field manager {@code gitopshq-agent}, no default namespace. */
  public static DirectDeployConfig defaults() {
    return new DirectDeployConfig(DEFAULT_FIELD_MANAGER, "");
  }

  /**
   * Reads and validates the values.
   *
   * @throws ConfigException naming the variable at fault
   */
  public static DirectDeployConfig fromEnv(Map<String, String> env) {
    String manager = optional(env, FIELD_MANAGER).orElse(DEFAULT_FIELD_MANAGER);
    if (!MANAGER.matcher(manager).matches()) {
      throw new ConfigException(
          FIELD_MANAGER,
          "must be 1 to 128 printable characters without spaces (was '" + manager + "')");
    }
    String namespace = optional(env, DEFAULT_NAMESPACE).orElse("");
    if (!namespace.isEmpty()
        && (namespace.length() > 63 || !DNS_LABEL.matcher(namespace).matches())) {
      throw new ConfigException(
          DEFAULT_NAMESPACE,
          "must be a namespace name (an RFC 1123 label), was '" + namespace + "'");
    }
    return new DirectDeployConfig(manager, namespace);
  }

  private static Optional<String> optional(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }
}
