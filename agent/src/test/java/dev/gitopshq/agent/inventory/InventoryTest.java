package dev.gitopshq.agent.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's inventory against a Kubernetes API (the Fabric8 mock): one snapshot once every kind
 * is listed, then coalesced deltas; a new snapshot after a broken send; and no Secret value in
 * anything that leaves the agent.
 */
class InventoryTest {
  static final String SECRET_VALUE = "c3VwZXItc2VjcmV0LXBhc3N3b3Jk"; // super-secret-password

  TestKube kube;
  List<AgentMessage> sent = new CopyOnWriteArrayList<>();
  AtomicBoolean connected = new AtomicBoolean(true);
  InventoryPublisher publisher;
  InventoryWatch watch;

  @BeforeEach
  void start() {
    kube = TestKube.start();
    var client = kube.client();
    client
        .apps()
        .deployments()
        .inNamespace("shop")
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("shop")
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(3)
                .endSpec()
                .withNewStatus()
                .withReadyReplicas(2)
                .withUpdatedReplicas(3)
                .endStatus()
                .build())
        .create();
    client
        .secrets()
        .inNamespace("shop")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("db")
                .withNamespace("shop")
                .endMetadata()
                .withType("Opaque")
                .addToData("password", SECRET_VALUE)
                .build())
        .create();
    client
        .configMaps()
        .inNamespace("shop")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("settings")
                .withNamespace("shop")
                .endMetadata()
                .addToData("mode", "fast")
                .build())
        .create();
    publisher =
        new InventoryPublisher(
            m -> {
              if (!connected.get()) {
                return false;
              }
              sent.add(m);
              return true;
            },
            Clock.systemUTC());
    watch = new InventoryWatch(kube::client, publisher);
  }

  @AfterEach
  void stop() {
    if (watch != null) {
      watch.close();
    }
    if (kube != null) {
      kube.close();
    }
  }

  Map<String, InventoryObject> snapshot() {
    Map<String, InventoryObject> byName = new HashMap<>();
    sent.stream()
        .filter(AgentMessage::hasInventorySnapshot)
        .flatMap(m -> m.getInventorySnapshot().getObjectsList().stream())
        .forEach(o -> byName.put(o.getKind() + "/" + o.getNamespace() + "/" + o.getName(), o));
    return byName;
  }

  @Test
  void aSnapshotOnceEveryKindIsListedThenOnlyTheChanges() {
    publisher.flush();
    assertThat(sent).as("nothing before the informers have listed").isEmpty();

    watch.start();
    await().atMost(Duration.ofSeconds(20)).until(watch::synced);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              publisher.flush();
              assertThat(snapshot()).containsKey("Deployment/shop/web");
            });
    AgentMessage first = sent.get(0);
    assertThat(first.getInventorySnapshot().getPart()).isZero();
    assertThat(sent.stream().filter(m -> m.getInventorySnapshot().getLast()).count()).isEqualTo(1);

    InventoryObject web = snapshot().get("Deployment/shop/web");
    assertThat(web.getGroup()).isEqualTo("apps");
    assertThat(web.getVersion()).isEqualTo("v1");
    assertThat(web.getStatus()).isEqualTo("2/3 ready");
    assertThat(web.getHealth()).isEqualTo(Summaries.PROGRESSING);
    assertThat(web.getLabelsMap()).containsEntry("app", "web");
    assertThat(snapshot().get("Secret/shop/db").getStatus()).isEqualTo("Opaque, 1 key");
    assertThat(snapshot().get("ConfigMap/shop/settings").getStatus()).isEqualTo("1 key");

    // Changes after the snapshot go out as deltas, several changes of one Pod as one upsert.
    sent.clear();
    var pods = kube.client().pods().inNamespace("shop");
    pods.resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("web-1")
                .withNamespace("shop")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("app")
                .withImage("nginx")
                .endContainer()
                .endSpec()
                .build())
        .create();
    pods.withName("web-1")
        .edit(p -> new PodBuilder(p).editMetadata().addToLabels("v", "2").endMetadata().build());
    kube.client().configMaps().inNamespace("shop").withName("settings").delete();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(publisher.size()).isGreaterThan(0);
              publisher.flush();
              List<InventoryObject> upserts =
                  sent.stream()
                      .filter(AgentMessage::hasInventoryDelta)
                      .flatMap(m -> m.getInventoryDelta().getUpsertsList().stream())
                      .toList();
              assertThat(upserts)
                  .anyMatch(o -> o.getName().equals("web-1") && o.getLabelsMap().containsKey("v"));
              assertThat(
                      sent.stream()
                          .filter(AgentMessage::hasInventoryDelta)
                          .flatMap(m -> m.getInventoryDelta().getDeletedUidsList().stream()))
                  .isNotEmpty();
            });
    assertThat(sent).noneMatch(AgentMessage::hasInventorySnapshot);
  }

  @Test
  void aFailedSendIsFollowedByAWholeSnapshotAndNoSecretValueEverLeaves() {
    watch.start();
    await().atMost(Duration.ofSeconds(20)).until(watch::synced);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              publisher.flush();
              assertThat(snapshot()).containsKey("Secret/shop/db");
            });
    int before = publisher.size();
    connected.set(false);
    kube.client().configMaps().inNamespace("shop").withName("settings").delete();
    await().atMost(Duration.ofSeconds(10)).until(() -> publisher.size() == before - 1);
    publisher.flush(); // fails: not connected
    connected.set(true);
    sent.clear();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              publisher.flush();
              assertThat(sent).anyMatch(AgentMessage::hasInventorySnapshot);
              assertThat(snapshot())
                  .containsKey("Deployment/shop/web")
                  .doesNotContainKey("ConfigMap/shop/settings");
            });

    String everything = sent.toString() + publisher.toString();
    assertThat(everything).doesNotContain(SECRET_VALUE).doesNotContain("super-secret-password");
  }
}
