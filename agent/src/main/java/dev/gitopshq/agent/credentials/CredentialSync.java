package dev.gitopshq.agent.credentials;

import dev.gitopshq.agent.kube.CredentialWriter;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.model.CredentialSecrets;
import dev.gitopshq.agent.v1.CredentialSyncResult;
import dev.gitopshq.agent.v1.CredentialsPruned;
import dev.gitopshq.agent.v1.NamespaceSync;
import dev.gitopshq.agent.v1.PruneCredentials;
import dev.gitopshq.agent.v1.RemovedSecret;
import dev.gitopshq.agent.v1.SyncCredential;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the hub's {@link SyncCredential}s and {@link PruneCredentials} and says how each went,
 * refusing every namespace outside credentialSync.targets. The agent's job runner runs them one at
 * a time, in the order they arrived, and refuses them all when the credential.sync capability is
 * off ({@link #refused(SyncCredential)}, {@link #refused(PruneCredentials)}). Logs ids, names and
 * namespaces, never values.
 */
public final class CredentialSync {
  private static final Logger log = LoggerFactory.getLogger(CredentialSync.class);
  static final String OFF = "the credential.sync capability is off on this agent";

  private final List<String> targets;
  private final Predicate<String> targetAllowed;
  private final CredentialWriter writer;

  /**
   * @param targets credentialSync.targets (empty: every namespace)
   */
  public CredentialSync(List<String> targets, CredentialWriter writer) {
    this.targets = List.copyOf(targets);
    this.targetAllowed = ns -> this.targets.isEmpty() || this.targets.contains(ns);
    this.writer = writer;
  }

  /** The answer without the credential.sync capability: no namespace is synced. */
  public static CredentialSyncResult refused(SyncCredential sync) {
    log.warn("credential {} not synced: {}", sync.getCredentialId(), OFF);
    CredentialSyncResult.Builder result = start(sync);
    for (String ns : sync.getNamespacesList()) {
      result.addNamespaces(NamespaceSync.newBuilder().setNamespace(ns).setError(OFF));
    }
    return result.build();
  }

  /** The answer without the credential.sync capability: nothing is pruned. */
  public static CredentialsPruned refused(PruneCredentials prune) {
    return CredentialsPruned.newBuilder().setRequestId(prune.getRequestId()).setError(OFF).build();
  }

  private static CredentialSyncResult.Builder start(SyncCredential sync) {
    return CredentialSyncResult.newBuilder()
        .setRequestId(sync.getRequestId())
        .setCredentialId(sync.getCredentialId())
        .setVersion(sync.getVersion());
  }

  /** Writes the credential into each namespace and says how each went. */
  public CredentialSyncResult sync(SyncCredential sync) {
    CredentialSyncResult.Builder result = start(sync);
    for (String ns : sync.getNamespacesList()) {
      String error = syncOne(sync, ns);
      result.addNamespaces(
          NamespaceSync.newBuilder()
              .setNamespace(ns)
              .setSynced(error == null)
              .setError(error == null ? "" : error));
      if (error == null) {
        log.info(
            "credential {} (version {}) synced as Secret {}/{}",
            sync.getCredentialId(),
            sync.getVersion(),
            ns,
            sync.getName());
      } else {
        log.warn(
            "credential {} not synced into namespace {}: {}", sync.getCredentialId(), ns, error);
      }
    }
    return result.build();
  }

  /** Null when the Secret now holds the credential; otherwise why not. */
  private String syncOne(SyncCredential sync, String namespace) {
    if (!targetAllowed.test(namespace)) {
      return "namespace " + namespace + " is outside the agent's credentialSync.targets " + targets;
    }
    if (CredentialSecrets.secretType(sync.getType()).isEmpty()) {
      return "unknown credential type " + Redactor.redact(sync.getType());
    }
    try {
      Secret existing = writer.get(namespace, sync.getName());
      if (existing != null && !CredentialSecrets.managedAs(existing, sync.getCredentialId())) {
        return "a Secret named "
            + sync.getName()
            + " already exists in "
            + namespace
            + " and is not this credential's; GitOpsHQ does not overwrite it";
      }
      if (existing != null
          && !Objects.equals(
              existing.getType(), CredentialSecrets.secretType(sync.getType()).get())) {
        // A Secret's type cannot change in place.
        writer.delete(namespace, sync.getName());
      }
      Map<String, byte[]> values = new LinkedHashMap<>();
      sync.getDataMap().forEach((k, v) -> values.put(k, v.toByteArray()));
      writer.apply(
          CredentialSecrets.desired(
              sync.getCredentialId(),
              sync.getName(),
              sync.getType(),
              sync.getVersion(),
              values,
              namespace));
      return null;
    } catch (KubernetesClientException e) {
      return "Kubernetes API: "
          + e.getCode()
          + " "
          + (e.getStatus() != null && e.getStatus().getReason() != null
              ? e.getStatus().getReason()
              : "error");
    } catch (RuntimeException e) {
      return "could not write the Secret: " + e.getClass().getSimpleName();
    }
  }

  /** Removes the managed Secrets the hub no longer assigns. */
  public CredentialsPruned prune(PruneCredentials prune) {
    CredentialsPruned.Builder out =
        CredentialsPruned.newBuilder().setRequestId(prune.getRequestId());
    try {
      Set<String> wanted = new HashSet<>();
      for (var c : prune.getKeepList()) {
        for (String ns : c.getNamespacesList()) {
          wanted.add(CredentialSecrets.key(c.getCredentialId(), ns, c.getName()));
        }
      }
      for (Secret s : CredentialSecrets.stale(writer.managed(targets), wanted)) {
        String ns = s.getMetadata().getNamespace();
        String name = s.getMetadata().getName();
        String id = s.getMetadata().getLabels().get(CredentialSecrets.CREDENTIAL_ID);
        writer.delete(ns, name);
        log.info("credential {} removed: Secret {}/{} is no longer assigned", id, ns, name);
        out.addRemoved(
            RemovedSecret.newBuilder().setCredentialId(id).setNamespace(ns).setName(name));
      }
    } catch (KubernetesClientException e) {
      out.setError("Kubernetes API: " + e.getCode());
      log.warn("credential prune failed: Kubernetes API {}", e.getCode());
    }
    return out.build();
  }
}
