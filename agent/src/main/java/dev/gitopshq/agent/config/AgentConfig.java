package dev.gitopshq.agent.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.agent.proxy.ProxyConfigException;
import dev.gitopshq.agent.proxy.ProxySettings;
import dev.gitopshq.agent.proxy.ProxyUrl;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The agent's configuration, read once at start from environment variables and immutable
 * afterwards.
 *
 * <p>Build it with {@link #fromEnv(Map)}, which validates every value and throws a {@link
 * ConfigException} naming the variable at fault. The registration token is a secret: {@link
 * #toString()} only says whether it is set. So is a proxy password: it is shown as {@code ****}.
 *
 * @param hubAddress the hub's agent gRPC endpoint, {@code host:port}
 * @param registrationToken the single-use registration token, needed on first run only
 * @param identityStoreMode where the identity is persisted
 * @param agentTokenPath the identity file in {@link IdentityStoreMode#FILE} mode
 * @param identitySecretName the identity Secret in {@link IdentityStoreMode#SECRET} mode
 * @param identitySecretNamespace the identity Secret's namespace
 * @param clusterName the cluster's name in the hub (an RFC 1123 label)
 * @param displayName human-readable name, may be empty
 * @param provider cloud provider label, may be empty
 * @param region region label, may be empty
 * @param environment environment label, may be empty
 * @param capabilities capability seed names, in configured order, without duplicates
 * @param statusIntervalSeconds a heartbeat interval that overrides the hub's setting, if set
 * @param hubInsecure use TLS but skip certificate verification
 * @param hubPlaintext connect without TLS
 * @param hubCaFile a PEM bundle of extra trusted CAs, if set
 * @param reconnectMaxSeconds the cap of the reconnect backoff
 * @param proxy the HTTP CONNECT proxies from {@code HTTPS_PROXY} / {@code HTTP_PROXY} / {@code
 *     NO_PROXY} (or their lowercase forms), read by {@link ProxySettings#fromEnv}; see {@link
 *     #hubProxy()}
 * @param diagnosticsNamespaces the namespaces diagnostics and inspection of namespaced objects are
 *     limited to (the chart's {@code diagnostics.allowedNamespaces}); empty: all
 * @param argocdServer the Argo CD server's URL for "View in Argo CD" links (the chart's {@code
 *     argocd.server}); empty when unknown
 * @param metricsPort the port of the Prometheus endpoint; 0: none
 * @param credentialSyncTargets the namespaces synced credentials may be written to (the chart's
 *     {@code credentialSync.targets}); empty: every namespace a credential is assigned to
 * @param clusterLabels the cluster's labels as the chart's {@code cluster.labels} sets them, which
 *     the agent reports to the hub in Register and Hello; the hub's own labels win for a key set in
 *     both
 */
public record AgentConfig(
    String hubAddress,
    Optional<String> registrationToken,
    IdentityStoreMode identityStoreMode,
    Path agentTokenPath,
    String identitySecretName,
    String identitySecretNamespace,
    String clusterName,
    String displayName,
    String provider,
    String region,
    String environment,
    List<String> capabilities,
    OptionalInt statusIntervalSeconds,
    boolean hubInsecure,
    boolean hubPlaintext,
    Optional<Path> hubCaFile,
    int reconnectMaxSeconds,
    ProxySettings proxy,
    List<String> diagnosticsNamespaces,
    String argocdServer,
    int metricsPort,
    List<String> credentialSyncTargets,
    Map<String, String> clusterLabels) {

  /** Hub gRPC endpoint, {@code host:port}. Required. */
  public static final String HUB_ADDRESS = "GITOPSHQ_HUB_ADDRESS";

  /** One-time registration token. Required on first run only. */
  public static final String REGISTRATION_TOKEN = "GITOPSHQ_REGISTRATION_TOKEN";

  /** {@code file} or {@code secret}. */
  public static final String IDENTITY_STORE_MODE = "GITOPSHQ_IDENTITY_STORE_MODE";

  /** The identity file in file mode. */
  public static final String AGENT_TOKEN_PATH = "GITOPSHQ_AGENT_TOKEN_PATH";

  /** The identity Secret's name in secret mode. */
  public static final String IDENTITY_SECRET_NAME = "GITOPSHQ_IDENTITY_SECRET_NAME";

  /** The identity Secret's namespace in secret mode. */
  public static final String IDENTITY_SECRET_NAMESPACE = "GITOPSHQ_IDENTITY_SECRET_NAMESPACE";

  /** The cluster's name in the hub. */
  public static final String CLUSTER_NAME = "GITOPSHQ_CLUSTER_NAME";

  /** Human-readable cluster name. */
  public static final String DISPLAY_NAME = "GITOPSHQ_DISPLAY_NAME";

  /** Cloud provider label. */
  public static final String PROVIDER = "GITOPSHQ_PROVIDER";

  /** Region label. */
  public static final String REGION = "GITOPSHQ_REGION";

  /** Environment label. */
  public static final String ENVIRONMENT = "GITOPSHQ_ENVIRONMENT";

  /** Comma-separated capability seed names. */
  public static final String CAPABILITIES = "GITOPSHQ_CAPABILITIES";

  /** Heartbeat interval in seconds, overriding the hub's setting. */
  public static final String STATUS_INTERVAL_SECONDS = "GITOPSHQ_STATUS_INTERVAL_SECONDS";

  /** Use TLS without verifying the hub's certificate. */
  public static final String HUB_INSECURE = "GITOPSHQ_HUB_INSECURE";

  /** Connect without TLS. */
  public static final String HUB_PLAINTEXT = "GITOPSHQ_HUB_PLAINTEXT";

  /** PEM bundle of extra trusted CAs. */
  public static final String HUB_CA_FILE = "GITOPSHQ_HUB_CA_FILE";

  /**
   * Comma-separated namespaces that events, logs and the inspection of namespaced objects are
   * limited to; unset or empty: every namespace.
   */
  public static final String DIAGNOSTICS_ALLOWED_NAMESPACES =
      "GITOPSHQ_DIAGNOSTICS_ALLOWED_NAMESPACES";

  /** The Argo CD server's URL, e.g. https://argocd.example.com, for links to its UI. */
  public static final String ARGOCD_SERVER = "GITOPSHQ_ARGOCD_SERVER";

  /**
   * The port of the agent's Prometheus endpoint ({@code GET /metrics}); unset or 0: none (the agent
   * then listens on no port at all).
   */
  public static final String METRICS_PORT = "GITOPSHQ_METRICS_PORT";

  /**
   * The credential sync strategy (the chart's {@code credentialSync.mode}). {@code mirrored}, the
   * only one: the same Secret is written into every target namespace of a credential.
   */
  public static final String CREDENTIAL_SYNC_MODE = "GITOPSHQ_CREDENTIAL_SYNC_MODE";

  /** The one credential sync strategy there is. */
  public static final String MODE_MIRRORED = "mirrored";

  /**
   * Comma-separated namespaces synced credentials may be written to (the chart's {@code
   * credentialSync.targets}); unset or empty: every namespace a credential is assigned to.
   */
  public static final String CREDENTIAL_SYNC_TARGETS = "GITOPSHQ_CREDENTIAL_SYNC_TARGETS";

  /** Cap of the reconnect backoff, in seconds. */
  /**
   * The cluster's labels as a JSON object of strings (the chart's {@code cluster.labels}), e.g.
   * {@code {"tier":"production"}}. Optional.
   */
  public static final String CLUSTER_LABELS = "GITOPSHQ_CLUSTER_LABELS";

  public static final String RECONNECT_MAX_SECONDS = "GITOPSHQ_RECONNECT_MAX_SECONDS";

  /** The pod's namespace, set by the Downward API in the Helm chart. */
  public static final String POD_NAMESPACE = "POD_NAMESPACE";

  /** The identity file used when {@link #AGENT_TOKEN_PATH} is not set. */
  public static final Path DEFAULT_AGENT_TOKEN_PATH = Path.of("/tmp/gitopshq-agent-token");

  /** The identity Secret used when {@link #IDENTITY_SECRET_NAME} is not set. */
  public static final String DEFAULT_IDENTITY_SECRET_NAME = "gitopshq-agent-identity";

  /** The namespace used when neither the environment nor the service account names one. */
  public static final String FALLBACK_NAMESPACE = "gitopshq-system";

  /** The heartbeat interval when neither the environment nor the hub sets one. */
  public static final int DEFAULT_STATUS_INTERVAL_SECONDS = 30;

  static final Path SERVICE_ACCOUNT_NAMESPACE_FILE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  private static final Pattern HOST_PORT =
      Pattern.compile(
          "^(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})$");
  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final int MAX_SECONDS = 3600;

  /** Validates the components and makes the capability list immutable. */
  public AgentConfig {
    Objects.requireNonNull(hubAddress, "hubAddress");
    Objects.requireNonNull(registrationToken, "registrationToken");
    Objects.requireNonNull(identityStoreMode, "identityStoreMode");
    Objects.requireNonNull(agentTokenPath, "agentTokenPath");
    Objects.requireNonNull(identitySecretName, "identitySecretName");
    Objects.requireNonNull(identitySecretNamespace, "identitySecretNamespace");
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(displayName, "displayName");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(statusIntervalSeconds, "statusIntervalSeconds");
    Objects.requireNonNull(hubCaFile, "hubCaFile");
    Objects.requireNonNull(proxy, "proxy");
    capabilities = List.copyOf(capabilities);
    diagnosticsNamespaces = List.copyOf(diagnosticsNamespaces);
    Objects.requireNonNull(argocdServer, "argocdServer");
    credentialSyncTargets = List.copyOf(credentialSyncTargets);
  }

  /**
   * Reads and validates the configuration from environment variables.
   *
   * @param env the environment, usually {@code System.getenv()}
   * @throws ConfigException naming the first variable that is missing or invalid
   */
  public static AgentConfig fromEnv(Map<String, String> env) {
    return fromEnv(env, SERVICE_ACCOUNT_NAMESPACE_FILE);
  }

  static AgentConfig fromEnv(Map<String, String> env, Path serviceAccountNamespaceFile) {
    String hubAddress =
        optional(env, HUB_ADDRESS)
            .orElseThrow(
                () ->
                    new ConfigException(
                        HUB_ADDRESS,
                        "is required: the hub's agent gRPC endpoint, e.g. agent.gitopshq.example.com:50051"));
    if (!validHostPort(hubAddress)) {
      throw new ConfigException(
          HUB_ADDRESS,
          "must be host:port, e.g. agent.gitopshq.example.com:50051 (was '" + hubAddress + "')");
    }

    IdentityStoreMode mode =
        switch (optional(env, IDENTITY_STORE_MODE).orElse("file").toLowerCase(Locale.ROOT)) {
          case "file" -> IdentityStoreMode.FILE;
          case "secret" -> IdentityStoreMode.SECRET;
          default ->
              throw new ConfigException(
                  IDENTITY_STORE_MODE,
                  "must be 'file' or 'secret' (was '" + env.get(IDENTITY_STORE_MODE).trim() + "')");
        };

    Path tokenPath =
        optional(env, AGENT_TOKEN_PATH)
            .map(
                value -> {
                  try {
                    return Path.of(value);
                  } catch (InvalidPathException e) {
                    throw new ConfigException(
                        AGENT_TOKEN_PATH, "is not a valid path: " + e.getReason());
                  }
                })
            .orElse(DEFAULT_AGENT_TOKEN_PATH);

    String secretName = optional(env, IDENTITY_SECRET_NAME).orElse(DEFAULT_IDENTITY_SECRET_NAME);
    if (secretName.length() > 253 || !DNS_SUBDOMAIN.matcher(secretName).matches()) {
      throw new ConfigException(
          IDENTITY_SECRET_NAME,
          "must be a valid Secret name (lowercase letters, digits, '-' and '.'), was '"
              + secretName
              + "'");
    }
    String secretNamespace =
        optional(env, IDENTITY_SECRET_NAMESPACE)
            .or(() -> optional(env, POD_NAMESPACE))
            .or(() -> readNamespaceFile(serviceAccountNamespaceFile))
            .orElse(FALLBACK_NAMESPACE);
    if (!validLabel(secretNamespace)) {
      throw new ConfigException(
          IDENTITY_SECRET_NAMESPACE,
          "must be a valid namespace name (an RFC 1123 label), was '" + secretNamespace + "'");
    }

    String clusterName = optional(env, CLUSTER_NAME).orElse("default");
    if (!validLabel(clusterName)) {
      throw new ConfigException(
          CLUSTER_NAME,
          "must be an RFC 1123 label (lowercase letters, digits and '-', at most 63 characters,"
              + " starting and ending with a letter or digit), was '"
              + clusterName
              + "'");
    }

    OptionalInt interval =
        optional(env, STATUS_INTERVAL_SECONDS)
            .map(value -> OptionalInt.of(seconds(STATUS_INTERVAL_SECONDS, value)))
            .orElse(OptionalInt.empty());
    int reconnectMax =
        optional(env, RECONNECT_MAX_SECONDS)
            .map(value -> seconds(RECONNECT_MAX_SECONDS, value))
            .orElse(60);

    boolean insecure = bool(env, HUB_INSECURE);
    boolean plaintext = bool(env, HUB_PLAINTEXT);
    if (insecure && plaintext) {
      throw new ConfigException(
          HUB_INSECURE,
          "and "
              + HUB_PLAINTEXT
              + " cannot both be true: one skips certificate checks on a TLS"
              + " connection, the other disables TLS");
    }
    Optional<Path> caFile =
        optional(env, HUB_CA_FILE)
            .map(
                value -> {
                  Path path;
                  try {
                    path = Path.of(value);
                  } catch (InvalidPathException e) {
                    throw new ConfigException(HUB_CA_FILE, "is not a valid path: " + e.getReason());
                  }
                  if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
                    throw new ConfigException(
                        HUB_CA_FILE, "names " + path + ", which is not a readable file");
                  }
                  return path;
                });
    if (caFile.isPresent() && plaintext) {
      throw new ConfigException(
          HUB_CA_FILE, "is set but " + HUB_PLAINTEXT + "=true disables TLS; unset one of them");
    }

    return new AgentConfig(
        hubAddress,
        optional(env, REGISTRATION_TOKEN),
        mode,
        tokenPath,
        secretName,
        secretNamespace,
        clusterName,
        optional(env, DISPLAY_NAME).orElse(""),
        optional(env, PROVIDER).orElse(""),
        optional(env, REGION).orElse(""),
        optional(env, ENVIRONMENT).orElse(""),
        capabilities(optional(env, CAPABILITIES).orElse("observe")),
        interval,
        insecure,
        plaintext,
        caFile,
        reconnectMax,
        proxySettings(env),
        namespaces(
            DIAGNOSTICS_ALLOWED_NAMESPACES,
            optional(env, DIAGNOSTICS_ALLOWED_NAMESPACES).orElse("")),
        argocdServer(optional(env, ARGOCD_SERVER).orElse("")),
        optional(env, METRICS_PORT).map(AgentConfig::metricsPort).orElse(0),
        credentialSyncTargets(env),
        clusterLabels(optional(env, CLUSTER_LABELS).orElse("")));
  }

  /** At most this many labels, as the hub accepts. */
  static final int MAX_CLUSTER_LABELS = 64;

  private static Map<String, String> clusterLabels(String value) {
    if (value.isBlank()) {
      return Map.of();
    }
    JsonNode node;
    try {
      node = new ObjectMapper().readTree(value);
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          CLUSTER_LABELS, "must be a JSON object of strings, e.g. {\"tier\":\"production\"}");
    }
    if (node == null || !node.isObject()) {
      throw new ConfigException(
          CLUSTER_LABELS, "must be a JSON object of strings, e.g. {\"tier\":\"production\"}");
    }
    Map<String, String> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isTextual()) {
        throw new ConfigException(
            CLUSTER_LABELS, "label " + e.getKey() + " must have a string value (quote it)");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    if (out.size() > MAX_CLUSTER_LABELS) {
      throw new ConfigException(
          CLUSTER_LABELS, "must have at most " + MAX_CLUSTER_LABELS + " labels");
    }
    return Map.copyOf(out);
  }

  /**
   * The credential sync targets, after checking the mode: {@code mirrored} is the only strategy,
   * and any other value is refused rather than silently treated as it.
   */
  private static List<String> credentialSyncTargets(Map<String, String> env) {
    String mode = optional(env, CREDENTIAL_SYNC_MODE).orElse(MODE_MIRRORED);
    if (!MODE_MIRRORED.equals(mode)) {
      throw new ConfigException(
          CREDENTIAL_SYNC_MODE,
          "must be mirrored (the same Secret in every target namespace), the only credential sync"
              + " mode (was '"
              + mode
              + "')");
    }
    return namespaces(CREDENTIAL_SYNC_TARGETS, optional(env, CREDENTIAL_SYNC_TARGETS).orElse(""));
  }

  /** Whether a synced credential may be written into this namespace. */
  public boolean credentialTargetAllowed(String namespace) {
    return credentialSyncTargets.isEmpty() || credentialSyncTargets.contains(namespace);
  }

  private static int metricsPort(String value) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 0 && port <= 65_535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new ConfigException(
        METRICS_PORT, "must be a port number from 0 (no endpoint) to 65535 (was '" + value + "')");
  }

  private static ProxySettings proxySettings(Map<String, String> env) {
    try {
      return ProxySettings.fromEnv(env);
    } catch (ProxyConfigException e) {
      throw new ConfigException(e.variable(), e.problem());
    }
  }

  /** Where the identity lives, for log lines: a file path or namespace/name of a Secret. */
  public String identityLocation() {
    return identityStoreMode == IdentityStoreMode.FILE
        ? "file " + agentTokenPath
        : "Secret " + identitySecretNamespace + "/" + identitySecretName;
  }

  /**
   * The proxy for the connection to the hub: {@code HTTPS_PROXY} for TLS, {@code HTTP_PROXY} for
   * plaintext ({@link #hubPlaintext()}), and whichever is set when only one is. {@code NO_PROXY} is
   * not applied here; see {@link ProxySettings#noProxy()}.
   */
  public Optional<ProxyUrl> hubProxy() {
    return proxy.forHub(hubPlaintext);
  }

  /** Describes the configuration without the registration token's value or proxy passwords. */
  @Override
  public String toString() {
    return "AgentConfig[hubAddress="
        + hubAddress
        + ", registrationToken="
        + (registrationToken.isPresent() ? "<set>" : "<not set>")
        + ", identityStoreMode="
        + identityStoreMode
        + ", agentTokenPath="
        + agentTokenPath
        + ", identitySecret="
        + identitySecretNamespace
        + "/"
        + identitySecretName
        + ", clusterName="
        + clusterName
        + ", displayName="
        + displayName
        + ", provider="
        + provider
        + ", region="
        + region
        + ", environment="
        + environment
        + ", capabilities="
        + capabilities
        + ", statusIntervalSeconds="
        + statusIntervalSeconds
        + ", hubInsecure="
        + hubInsecure
        + ", hubPlaintext="
        + hubPlaintext
        + ", hubCaFile="
        + hubCaFile
        + ", reconnectMaxSeconds="
        + reconnectMaxSeconds
        + ", proxy="
        + proxy
        + ", diagnosticsNamespaces="
        + diagnosticsNamespaces
        + ", argocdServer="
        + argocdServer
        + ", credentialSyncTargets="
        + credentialSyncTargets
        + "]";
  }

  /** A variable's trimmed value; blank counts as unset, as Helm renders unset values empty. */
  private static Optional<String> optional(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }

  private static boolean validHostPort(String address) {
    var matcher = HOST_PORT.matcher(address);
    if (!matcher.matches()) {
      return false;
    }
    int port = Integer.parseInt(matcher.group(3));
    return port >= 1 && port <= 65_535;
  }

  private static boolean validLabel(String value) {
    return value.length() <= 63 && DNS_LABEL.matcher(value).matches();
  }

  private static Optional<String> readNamespaceFile(Path file) {
    try {
      return Files.isReadable(file)
          ? Optional.of(Files.readString(file).trim()).filter(v -> !v.isEmpty())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static int seconds(String variable, String value) {
    try {
      int seconds = Integer.parseInt(value);
      if (seconds >= 1 && seconds <= MAX_SECONDS) {
        return seconds;
      }
    } catch (NumberFormatException e) {
      // Reported below with the same message as an out-of-range number.
    }
    throw new ConfigException(
        variable,
        "must be a whole number of seconds from 1 to " + MAX_SECONDS + " (was '" + value + "')");
  }

  private static boolean bool(Map<String, String> env, String variable) {
    String value = optional(env, variable).orElse("false");
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw new ConfigException(variable, "must be true or false (was '" + value + "')");
    };
  }

  private static String argocdServer(String value) {
    if (value.isEmpty()) {
      return "";
    }
    try {
      URI uri = new URI(value);
      if ((!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme()))
          || uri.getHost() == null
          || uri.getRawUserInfo() != null
          || value.length() > 2048) {
        throw new URISyntaxException(value, "not an http(s) URL");
      }
    } catch (URISyntaxException e) {
      throw new ConfigException(
          ARGOCD_SERVER, "must be the Argo CD server's URL, e.g. https://argocd.example.com");
    }
    return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
  }

  private static List<String> namespaces(String variable, String value) {
    Set<String> names = new LinkedHashSet<>();
    for (String raw : value.split(",")) {
      String name = raw.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (!validLabel(name)) {
        throw new ConfigException(
            variable, "names '" + name + "', which is not a namespace name (an RFC 1123 label)");
      }
      names.add(name);
    }
    return new ArrayList<>(names);
  }

  /** Whether diagnostics may look into this namespace ("" for cluster-scoped objects: yes). */
  public boolean diagnosticsAllowed(String namespace) {
    return diagnosticsNamespaces.isEmpty()
        || namespace == null
        || namespace.isEmpty()
        || diagnosticsNamespaces.contains(namespace);
  }

  private static List<String> capabilities(String value) {
    Set<String> names = new LinkedHashSet<>();
    for (String raw : value.split(",")) {
      String name = raw.trim().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      if (Capability.fromSeedName(name).isEmpty()) {
        throw new ConfigException(
            CAPABILITIES,
            "names an unknown capability '"
                + raw.trim()
                + "'; valid capabilities are "
                + Capability.allSeedNames());
      }
      names.add(name);
    }
    if (names.isEmpty()) {
      throw new ConfigException(CAPABILITIES, "must name at least one capability, e.g. observe");
    }
    return new ArrayList<>(names);
  }
}
