package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.values;
import static dev.gitopshq.charts.HubChartTest.ENCRYPTION_KEY;
import static dev.gitopshq.charts.HubChartTest.PEER_KEY;
import static dev.gitopshq.charts.HubChartTest.render;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A three-replica install as docs/operations.md describes the production topology: the rendered
 * manifest has three pods on one shared volume, one key, one Temporal cluster's frontend, a
 * disruption budget that keeps two of them up during a drain, and one Service in front of all.
 */
@Tag("integration") // runs the helm binary
class HubChartHaTest {
  static final String NAME = "gitopshq-gitopshq-hub";

  static Map<String, Object> threeReplicas(Object... more) {
    Map<String, Object> v =
        values(
            "replicaCount",
            3,
            "database.url",
            "jdbc:postgresql://postgres-primary.db.svc:5432/gitopshq",
            "database.password",
            "s3cret-db",
            "temporal.address",
            "temporal-frontend.temporal.svc:7233",
            "temporal.namespace",
            "gitopshq",
            "persistence.accessModes",
            List.of("ReadWriteMany"),
            "persistence.storageClass",
            "efs",
            "encryptionKey.value",
            ENCRYPTION_KEY,
            "peerKey.value",
            PEER_KEY);
    for (int i = 0; i < more.length; i += 2) {
      Chart.put(v, (String) more[i], more[i + 1]);
    }
    return v;
  }

  @Test
  void threeReplicasShareOneVolumeOneKeyAndOneTemporalCluster() {
    Rendered r = render(threeReplicas());

    assertThat(r.deployment().getSpec().getReplicas()).isEqualTo(3);
    // Shared storage: no Recreate (that is for a ReadWriteOnce volume), replicas roll one by one.
    assertThat(r.deployment().getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(r.get(PersistentVolumeClaim.class, NAME + "-data").getSpec().getAccessModes())
        .containsExactly("ReadWriteMany");
    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_DB_URL", "jdbc:postgresql://postgres-primary.db.svc:5432/gitopshq")
        .containsEntry("TEMPORAL_ADDRESS", "temporal-frontend.temporal.svc:7233")
        .containsEntry("TEMPORAL_NAMESPACE", "gitopshq")
        .containsEntry("GITOPSHQ_ENCRYPTION_KEY", ENCRYPTION_KEY)
        // Each pod names itself (host name + suffix): one fixed id would make three replicas
        // claim each other's agents and task queue.
        .doesNotContainKey("GITOPSHQ_REPLICA_ID");
    assertThat(r.container().getReadinessProbe().getHttpGet().getPath())
        .isEqualTo("/actuator/health/readiness");
    // One Service selects every replica.
    assertThat(r.get(Service.class, NAME).getSpec().getSelector())
        .isEqualTo(r.deployment().getSpec().getSelector().getMatchLabels());
  }

  @Test
  void aDrainTakesOneReplicaAtATime() {
    Rendered r = render(threeReplicas());

    PodDisruptionBudget pdb = r.get(PodDisruptionBudget.class, NAME);
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .isEqualTo(r.deployment().getSpec().getSelector().getMatchLabels());

    assertThat(
            render(threeReplicas("podDisruptionBudget.maxUnavailable", 2))
                .get(PodDisruptionBudget.class, NAME)
                .getSpec()
                .getMaxUnavailable()
                .getIntVal())
        .isEqualTo(2);
    assertThat(
            render(threeReplicas("podDisruptionBudget.enabled", false))
                .find(PodDisruptionBudget.class, NAME))
        .isEmpty();
  }

  @Test
  void threeReplicasOnPostgresStorageNeedNoSharedVolume() {
    // No ReadWriteMany class, no existing claim: the repositories are in the database.
    Map<String, Object> v = threeReplicas("git.storage", "postgres");
    Chart.put(v, "persistence.accessModes", List.of("ReadWriteOnce"));
    Rendered r = render(v);

    assertThat(r.deployment().getSpec().getReplicas()).isEqualTo(3);
    assertThat(r.all(PersistentVolumeClaim.class)).isEmpty();
    assertThat(
            r.deployment().getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(vol -> vol.getName().equals("data"))
                .findFirst()
                .orElseThrow()
                .getEmptyDir())
        .isNotNull();
    assertThat(r.deployment().getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_GIT_STORAGE", "postgres")
        .doesNotContainKey("GITOPSHQ_GIT_ROOT");
    // The same three replicas on file storage and a ReadWriteOnce volume are refused.
    Map<String, Object> files = threeReplicas();
    Chart.put(files, "persistence.accessModes", List.of("ReadWriteOnce"));
    assertThat(HubChartTest.CHART.renderError(files))
        .contains(
            "replicaCount > 1 needs a volume every replica can mount", "git.storage=postgres");
  }

  @Test
  void oneReplicaGetsNoBudgetThatWouldBlockEveryDrain() {
    assertThat(render(values()).find(PodDisruptionBudget.class, NAME)).isEmpty();
  }

  @Test
  void theSchemaRefusesABudgetOfZero() {
    assertThat(
            HubChartTest.CHART.renderError(threeReplicas("podDisruptionBudget.maxUnavailable", 0)))
        .contains("maxUnavailable");
  }
}
