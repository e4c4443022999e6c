package dev.gitopshq.agent.inventory;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared informers over the kinds the inventory shows, feeding an {@link InventoryPublisher}. Their
 * caches hold slimmed objects: no managed fields, no last-applied annotation, and no data of
 * Secrets or ConfigMaps, so a Secret's value never stays in the agent's memory either.
 */
public final class InventoryWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InventoryWatch.class);

  /** The kinds watched, in the order they are started. */
  static final List<Class<? extends HasMetadata>> KINDS =
      List.of(
          Namespace.class,
          Node.class,
          Pod.class,
          Deployment.class,
          StatefulSet.class,
          DaemonSet.class,
          ReplicaSet.class,
          Job.class,
          CronJob.class,
          Service.class,
          Ingress.class,
          ConfigMap.class,
          PersistentVolumeClaim.class,
          Secret.class);

  /** The kinds the inventory watches; inspection reads them typed. */
  public static List<Class<? extends HasMetadata>> kinds() {
    return KINDS;
  }

  private final Supplier<KubernetesClient> client;
  private final InventoryPublisher publisher;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final Set<String> unavailable = ConcurrentHashMap.newKeySet();

  public InventoryWatch(Supplier<KubernetesClient> client, InventoryPublisher publisher) {
    this.client = client;
    this.publisher = publisher;
  }

  /** Starts every informer; their initial lists arrive as additions. Idempotent. */
  public synchronized void start() {
    if (!informers.isEmpty()) {
      return;
    }
    KubernetesClient kube = client.get();
    for (Class<? extends HasMetadata> kind : KINDS) {
      informers.add(start(kube, kind));
    }
    publisher.watching(this::synced);
    log.info("inventory: watching {} kinds", KINDS.size());
  }

  private <T extends HasMetadata> SharedIndexInformer<T> start(
      KubernetesClient kube, Class<T> kind) {
    SharedIndexInformer<T> informer =
        kube.resources(kind).inAnyNamespace().runnableInformer(0).itemStore(new SlimStore<>());
    informer.addEventHandler(
        new ResourceEventHandler<T>() {
          @Override
          public void onAdd(T obj) {
            publisher.upsert(Summaries.summarize(obj));
          }

          @Override
          public void onUpdate(T oldObj, T newObj) {
            publisher.upsert(Summaries.summarize(newObj));
          }

          @Override
          public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            publisher.delete(obj.getMetadata().getUid());
          }
        });
    informer.exceptionHandler(
        (isStarted, t) -> {
          if (t instanceof KubernetesClientException k
              && (k.getCode() == 403 || k.getCode() == 404)) {
            // RBAC does not grant it, or the cluster does not serve it: the inventory goes on
            // without this kind rather than waiting for it forever.
            unavailable.add(kind.getSimpleName());
            log.warn(
                "inventory: cannot list {} ({}); the inventory leaves it out",
                kind.getSimpleName(),
                k.getCode() == 403 ? "forbidden by RBAC" : "not served by this cluster");
            return false;
          }
          log.warn(
              "inventory: watching {} failed ({}); retrying",
              kind.getSimpleName(),
              t.getClass().getSimpleName());
          return true;
        });
    informer.start();
    return informer;
  }

  /** Whether every informer has listed its kind once, or found it cannot. */
  public synchronized boolean synced() {
    return !informers.isEmpty()
        && informers.stream()
            .allMatch(
                i -> i.hasSynced() || unavailable.contains(i.getApiTypeClass().getSimpleName()));
  }

  /** The kinds the agent may not or cannot list, e.g. {@code Secret} when RBAC forbids it. */
  public Set<String> unavailable() {
    return Set.copyOf(unavailable);
  }

  @Override
  public synchronized void close() {
    informers.forEach(SharedIndexInformer::stop);
    informers.clear();
  }

  /**
   * The informer cache, holding each object without what the inventory never needs: managed fields,
   * the last-applied annotation and the data of Secrets and ConfigMaps.
   */
  static final class SlimStore<T extends HasMetadata> implements ItemStore<T> {
    private final BasicItemStore<T> delegate = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);

    @Override
    public String getKey(T obj) {
      return delegate.getKey(obj);
    }

    @Override
    public T put(String key, T obj) {
      return delegate.put(key, slim(obj));
    }

    @Override
    public T remove(String key) {
      return delegate.remove(key);
    }

    @Override
    public Stream<String> keySet() {
      return delegate.keySet();
    }

    @Override
    public Stream<T> values() {
      return delegate.values();
    }

    @Override
    public int size() {
      return delegate.size();
    }

    @Override
    public T get(String key) {
      return delegate.get(key);
    }
  }

  /** Drops the heavy and the secret parts of an object, in place (informers own their copies). */
  static <T extends HasMetadata> T slim(T obj) {
    obj.getMetadata().setManagedFields(null);
    if (obj.getMetadata().getAnnotations() != null) {
      obj.getMetadata().getAnnotations().remove("kubectl.kubernetes.io/last-applied-configuration");
    }
    if (obj instanceof Secret s) {
      // Keep the key names' count for the summary, never a value.
      if (s.getData() != null) {
        s.getData().replaceAll((k, v) -> "");
      }
      s.setStringData(null);
    } else if (obj instanceof ConfigMap c) {
      if (c.getData() != null) {
        c.getData().replaceAll((k, v) -> "");
      }
      if (c.getBinaryData() != null) {
        c.getBinaryData().replaceAll((k, v) -> "");
      }
    }
    return obj;
  }
}
