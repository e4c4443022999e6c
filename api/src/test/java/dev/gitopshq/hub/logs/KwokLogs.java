package dev.gitopshq.hub.logs;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Pods with a live log on the real API server: kwok serves a growing CRI log for every container in
 * the namespace {@value #NAMESPACE} (tools/dev/kube.sh), so a Deployment there has a pod to tail
 * and follow.
 */
public final class KwokLogs {
  public static final String NAMESPACE = "demo";

  private KwokLogs() {}

  /** Creates the namespace when missing and a one-pod Deployment {@code name} (label app=name). */
  public static void deployment(KubernetesClient admin, String name) {
    if (admin.namespaces().withName(NAMESPACE).get() == null) {
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
          .create();
    }
    admin
        .apps()
        .deployments()
        .inNamespace(NAMESPACE)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewSelector()
                .addToMatchLabels("app", name)
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("registry.example/app:1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
  }
}
