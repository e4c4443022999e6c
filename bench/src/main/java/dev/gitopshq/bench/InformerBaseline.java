package dev.gitopshq.bench;

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
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;

/**
 * The baseline of run-agent-inventory.sh: the smallest Fabric8 program that watches the same 14
 * kinds as the agent's inventory with plain shared informers (KUBECONFIG), and holds them. Prints
 * "baseline ready <objects>" once every informer has listed, then idles until killed.
 */
public final class InformerBaseline {
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

  private InformerBaseline() {}

  public static void main(String[] args) throws Exception {
    KubernetesClient client = new KubernetesClientBuilder().build();
    List<SharedIndexInformer<?>> informers = new ArrayList<>();
    for (Class<? extends HasMetadata> kind : KINDS) {
      informers.add(client.resources(kind).inAnyNamespace().inform());
    }
    while (!informers.stream().allMatch(SharedIndexInformer::hasSynced)) {
      Thread.sleep(200);
    }
    long objects = informers.stream().mapToLong(i -> i.getStore().list().size()).sum();
    System.out.println("baseline ready " + objects);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
