package dev.gitopshq.agent.kube;

import dev.gitopshq.agent.model.CredentialSecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Writes, lists and deletes the Secrets of synced credentials. */
public final class CredentialWriter {
  private final Supplier<KubernetesClient> client;

  public CredentialWriter(Supplier<KubernetesClient> client) {
    this.client = client;
  }

  /** The Secret with this name, if any. */
  public Secret get(String namespace, String name) {
    return client.get().secrets().inNamespace(namespace).withName(name).get();
  }

  /**
   * Server-side applies the Secret with {@link CredentialSecrets#FIELD_MANAGER}: the API server
   * merges by field ownership, so no last-applied-configuration annotation holds the data.
   */
  public void apply(Secret secret) {
    client
        .get()
        .secrets()
        .inNamespace(secret.getMetadata().getNamespace())
        .resource(secret)
        .fieldManager(CredentialSecrets.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  /**
   * The Secrets labelled managed by GitOpsHQ with a credential id: in every namespace, or only in
   * {@code namespaces} when it is not empty (credentialSync.targets).
   */
  public List<Secret> managed(List<String> namespaces) {
    if (namespaces.isEmpty()) {
      return client
          .get()
          .secrets()
          .inAnyNamespace()
          .withLabel(CredentialSecrets.MANAGED_BY, CredentialSecrets.MANAGED_BY_VALUE)
          .withLabel(CredentialSecrets.CREDENTIAL_ID)
          .list()
          .getItems();
    }
    List<Secret> all = new ArrayList<>();
    for (String ns : namespaces) {
      all.addAll(
          client
              .get()
              .secrets()
              .inNamespace(ns)
              .withLabel(CredentialSecrets.MANAGED_BY, CredentialSecrets.MANAGED_BY_VALUE)
              .withLabel(CredentialSecrets.CREDENTIAL_ID)
              .list()
              .getItems());
    }
    return all;
  }

  public void delete(String namespace, String name) {
    client.get().secrets().inNamespace(namespace).withName(name).delete();
  }
}
