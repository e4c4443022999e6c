package dev.gitopshq.hub.logs;

import static org.awaitility.Awaitility.await;

import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Pods with a live log on the real API server: kwok serves a growing CRI log for every container in
 * the namespace {@value #NAMESPACE} (tools/dev/kube.sh), so a Deployment there has a pod to tail
 * and follow.
 */
public final class KwokLogs {
  public static final String NAMESPACE = "demo";

  private KwokLogs() {}

  /**
   * Creates the namespace when missing and a one-pod Deployment {@code name} (label app=name), and
   * waits (up to 90 s) for its pod to run.
   *
   * @return the pod's name
   */
  public static String runningPod(KubernetesClient admin, String name) {
    deployment(admin, name);
    await().atMost(Duration.ofSeconds(90)).until(() -> running(admin, name).isPresent());
    return running(admin, name).orElseThrow();
  }

  /**
   * Appends {@code n} CRI lines "marker i" to the log kwok serves for the namespace's containers.
   */
  public static void appendLines(RealKube kube, int n, String marker) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(Instant.now()).append(" stdout F ").append(marker).append(' ').append(i);
      b.append('\n');
    }
    Files.writeString(
        kube.podLogFile(NAMESPACE),
        b.toString(),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static Optional<String> running(KubernetesClient admin, String name) {
    return admin.pods().inNamespace(NAMESPACE).withLabel("app", name).list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase()))
        .map(Pod::getMetadata)
        .map(m -> m.getName())
        .findFirst();
  }

  private static void deployment(KubernetesClient admin, String name) {
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
