package dev.gitopshq.agent.identity;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Keeps the identity in a Kubernetes Secret, under the key {@value #KEY}, labelled {@code
 * app.kubernetes.io/name=gitopshq-agent}.
 *
 * <p>The Secret may already exist without the key: the Helm chart can create it empty so that its
 * RBAC rule can name it. A save therefore adds the key to an existing Secret (keeping its other
 * keys, labels and annotations) and creates the Secret only when it is missing; a single API write
 * either way, so the identity is replaced atomically. {@link #clear()} removes the key rather than
 * the Secret, because the chart grants no delete permission.
 */
public final class SecretIdentityStore implements IdentityStore {

  /** The data key that holds the identity JSON. */
  public static final String KEY = "agent.json";

  /** The label that marks the Secret as the agent's. */
  public static final Map<String, String> LABELS =
      Map.of("app.kubernetes.io/name", "gitopshq-agent");

  private final Supplier<KubernetesClient> client;
  private final String namespace;
  private final String name;

  /**
   * Creates a store for the Secret {@code namespace/name}.
   *
   * @param client supplies the Kubernetes client; called on each operation, so the client can be
   *     created lazily
   */
  public SecretIdentityStore(Supplier<KubernetesClient> client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  @Override
  public Optional<AgentIdentity> load() {
    Secret secret;
    try {
      secret = client.get().secrets().inNamespace(namespace).withName(name).get();
    } catch (KubernetesClientException e) {
      throw failure("read", e);
    }
    if (secret == null || secret.getData() == null || secret.getData().get(KEY) == null) {
      return Optional.empty();
    }
    byte[] json;
    try {
      json = Base64.getDecoder().decode(secret.getData().get(KEY));
    } catch (IllegalArgumentException e) {
      throw new IdentityStoreException("the key " + KEY + " of " + location() + " is not base64");
    }
    return Optional.of(IdentityJson.decode(json, location()));
  }

  @Override
  public void save(AgentIdentity identity) {
    String encoded = Base64.getEncoder().encodeToString(IdentityJson.encode(identity));
    KubernetesClient kube = client.get();
    try {
      Secret existing = kube.secrets().inNamespace(namespace).withName(name).get();
      if (existing == null) {
        kube.secrets()
            .inNamespace(namespace)
            .resource(
                new SecretBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .withLabels(LABELS)
                    .endMetadata()
                    .withType("Opaque")
                    .addToData(KEY, encoded)
                    .build())
            .create();
        return;
      }
      kube.secrets()
          .inNamespace(namespace)
          .withName(name)
          .edit(
              secret -> {
                Map<String, String> data =
                    secret.getData() == null ? new HashMap<>() : new HashMap<>(secret.getData());
                data.put(KEY, encoded);
                Map<String, String> labels =
                    secret.getMetadata().getLabels() == null
                        ? new HashMap<>()
                        : new HashMap<>(secret.getMetadata().getLabels());
                labels.putAll(LABELS);
                return new SecretBuilder(secret)
                    .editMetadata()
                    .withLabels(labels)
                    .endMetadata()
                    .withData(data)
                    .build();
              });
    } catch (KubernetesClientException e) {
      throw failure("write", e);
    }
  }

  @Override
  public void clear() {
    try {
      KubernetesClient kube = client.get();
      Secret existing = kube.secrets().inNamespace(namespace).withName(name).get();
      if (existing == null || existing.getData() == null || !existing.getData().containsKey(KEY)) {
        return;
      }
      kube.secrets()
          .inNamespace(namespace)
          .withName(name)
          .edit(
              secret -> {
                Map<String, String> data = new HashMap<>(secret.getData());
                data.remove(KEY);
                return new SecretBuilder(secret).withData(data).build();
              });
    } catch (KubernetesClientException e) {
      throw failure("clear", e);
    }
  }

  @Override
  public String location() {
    return "Secret " + namespace + "/" + name;
  }

  private IdentityStoreException failure(String action, KubernetesClientException e) {
    // The client's message describes the request and the API status, never the Secret's data.
    return new IdentityStoreException(
        "cannot "
            + action
            + " the agent identity "
            + location()
            + ": HTTP "
            + e.getCode()
            + " "
            + e.getMessage(),
        e);
  }
}
