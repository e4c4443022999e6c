package dev.gitopshq.agent.model;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Secrets that synced credentials become (credentialSync.mode: mirrored: the same Secret in
 * every target namespace), and which managed Secrets a prune removes. Pure: no API calls.
 */
public final class CredentialSecrets {
  /** The field manager of every credential Secret's server-side apply. */
  public static final String FIELD_MANAGER = "gitopshq-credential-sync";

  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String MANAGED_BY_VALUE = "gitopshq";

  /** The credential's id (never its values), so a prune finds exactly what the hub synced. */
  public static final String CREDENTIAL_ID = "gitopshq.io/credential-id";

  /** The credential version the Secret holds. */
  public static final String CREDENTIAL_VERSION = "gitopshq.io/credential-version";

  private CredentialSecrets() {}

  /** The Kubernetes Secret type of a credential type, if it is one. */
  public static Optional<String> secretType(String credentialType) {
    return Optional.ofNullable(
        switch (credentialType) {
          case "dockerconfigjson" -> "kubernetes.io/dockerconfigjson";
          case "tls" -> "kubernetes.io/tls";
          case "opaque" -> "Opaque";
          default -> null;
        });
  }

  /**
   * The Secret to apply into {@code namespace}: only what GitOpsHQ owns (type, labels, data), so
   * the apply never claims fields others set, and no annotation repeats the data.
   */
  public static Secret desired(
      String credentialId,
      String name,
      String type,
      long version,
      Map<String, byte[]> values,
      String namespace) {
    Map<String, String> data = new LinkedHashMap<>();
    values.forEach((k, v) -> data.put(k, Base64.getEncoder().encodeToString(v)));
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .addToLabels(MANAGED_BY, MANAGED_BY_VALUE)
        .addToLabels(CREDENTIAL_ID, credentialId)
        .addToAnnotations(CREDENTIAL_VERSION, Long.toString(version))
        .endMetadata()
        .withType(secretType(type).orElseThrow())
        .withData(data)
        .build();
  }

  /** How {@link #stale} names a Secret the hub wants kept. */
  public static String key(String credentialId, String namespace, String name) {
    return credentialId + "/" + namespace + "/" + name;
  }

  /** True when GitOpsHQ manages this Secret as the credential with this id. */
  public static boolean managedAs(Secret secret, String credentialId) {
    Map<String, String> labels = secret.getMetadata().getLabels();
    return labels != null
        && MANAGED_BY_VALUE.equals(labels.get(MANAGED_BY))
        && credentialId.equals(labels.get(CREDENTIAL_ID));
  }

  /**
   * The managed credential Secrets the hub no longer wants: labelled managed by GitOpsHQ with a
   * credential id, and not one of {@code wanted} ({@link #key}).
   */
  public static List<Secret> stale(List<Secret> managed, Set<String> wanted) {
    return managed.stream()
        .filter(
            s -> {
              Map<String, String> labels = s.getMetadata().getLabels();
              if (labels == null
                  || !MANAGED_BY_VALUE.equals(labels.get(MANAGED_BY))
                  || labels.get(CREDENTIAL_ID) == null) {
                return false;
              }
              return !wanted.contains(
                  key(
                      labels.get(CREDENTIAL_ID),
                      s.getMetadata().getNamespace(),
                      s.getMetadata().getName()));
            })
        .toList();
  }
}
