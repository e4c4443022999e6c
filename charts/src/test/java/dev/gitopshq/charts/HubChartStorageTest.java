package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.values;
import static dev.gitopshq.charts.HubChartTest.CHART;
import static dev.gitopshq.charts.HubChartTest.ENCRYPTION_KEY;
import static dev.gitopshq.charts.HubChartTest.render;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hub's state on disk and the settings delivery generation added: the data volume with the
 * hosted Git repositories, the render scratch directory, the public URL, the encryption key and the
 * release approval timeout — and the combinations of replicas and storage that cannot work.
 */
@Tag("integration") // runs the helm binary
class HubChartStorageTest {
  static final String PVC = "gitopshq-gitopshq-hub-data";
  static final String DATA = "/var/lib/gitopshq/data";
  static final String RENDER = "/var/lib/gitopshq-render";

  static Volume volume(Rendered r, String name) {
    return r.deployment().getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  static String mountPath(Rendered r, String volume) {
    return r.container().getVolumeMounts().stream()
        .filter(m -> m.getName().equals(volume))
        .map(VolumeMount::getMountPath)
        .findFirst()
        .orElseThrow(() -> new AssertionError("volume " + volume + " is not mounted"));
  }

  static String strategy(Rendered r) {
    return r.deployment().getSpec().getStrategy().getType();
  }

  @Test
  void theDataDirectoryIsAPvcThatOutlivesTheRelease() {
    Rendered defaults = render(values());
    PersistentVolumeClaim pvc = defaults.get(PersistentVolumeClaim.class, PVC);
    assertThat(pvc.getMetadata().getNamespace()).isEqualTo("gitopshq");
    assertThat(pvc.getMetadata().getAnnotations()).containsEntry("helm.sh/resource-policy", "keep");
    assertThat(pvc.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
    assertThat(pvc.getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("10Gi"));
    assertThat(pvc.getSpec().getStorageClassName()).as("the cluster's default class").isNull();
    assertThat(volume(defaults, "data").getPersistentVolumeClaim().getClaimName()).isEqualTo(PVC);
    // One node can mount a ReadWriteOnce volume: a rolling update would leave the new pod pending.
    assertThat(strategy(defaults)).isEqualTo("Recreate");

    Rendered custom =
        render(
            values(
                "persistence.storageClass",
                "efs-sc",
                "persistence.size",
                "50Gi",
                "persistence.accessModes",
                List.of("ReadWriteMany"),
                "persistence.annotations",
                Map.of("backup.velero.io/backup-volumes", "data")));
    pvc = custom.get(PersistentVolumeClaim.class, PVC);
    assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("efs-sc");
    assertThat(pvc.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
    assertThat(pvc.getSpec().getResources().getRequests())
        .containsEntry("storage", new Quantity("50Gi"));
    assertThat(pvc.getMetadata().getAnnotations())
        .containsEntry("helm.sh/resource-policy", "keep")
        .containsEntry("backup.velero.io/backup-volumes", "data");
    assertThat(strategy(custom)).isEqualTo("RollingUpdate");

    // "-" asks for no class at all (a pre-provisioned volume), not the default one.
    assertThat(
            render(values("persistence.storageClass", "-"))
                .get(PersistentVolumeClaim.class, PVC)
                .getSpec()
                .getStorageClassName())
        .isEmpty();
  }

  @Test
  void theRepositoriesAndTheRenderDirectoryAreMountedWhereTheEnvironmentSays() {
    Rendered r = render(values());
    Map<String, EnvVar> env = r.env();

    assertThat(mountPath(r, "data")).isEqualTo(DATA);
    assertThat(mountPath(r, "render")).isEqualTo(RENDER);
    assertThat(env.get("GITOPSHQ_DATA_DIR").getValue()).isEqualTo(DATA);
    assertThat(env.get("GITOPSHQ_GIT_STORAGE").getValue()).isEqualTo("file");
    assertThat(env.get("GITOPSHQ_GIT_ROOT").getValue()).isEqualTo(DATA + "/repos");
    assertThat(env.get("GITOPSHQ_RENDER_DIR").getValue()).isEqualTo(RENDER);
    // Render scratch stays off the shared volume, on its own emptyDir.
    assertThat(RENDER).doesNotStartWith(DATA + "/");
    Volume render = volume(r, "render");
    assertThat(render.getEmptyDir()).isNotNull();
    assertThat(render.getEmptyDir().getSizeLimit()).isNull();
    assertThat(r.container().getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    // Ownership of a volume full of repositories is fixed once, not file by file on every start.
    assertThat(
            r.deployment()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getSecurityContext()
                .getFsGroupChangePolicy())
        .isEqualTo("OnRootMismatch");

    assertThat(
            volume(render(values("render.sizeLimit", "2Gi")), "render")
                .getEmptyDir()
                .getSizeLimit())
        .isEqualTo(new Quantity("2Gi"));
  }

  @Test
  void anExistingClaimIsMountedAndNoPvcIsCreated() {
    Rendered r =
        render(
            values(
                "persistence.existingClaim",
                "shared-repos",
                "replicaCount",
                3,
                "encryptionKey.existingSecret",
                "hub-encryption",
                "peerKey.existingSecret",
                "hub-peer",
                "peerTls.existingSecret",
                "hub-peer-tls"));

    assertThat(r.all(PersistentVolumeClaim.class)).isEmpty();
    assertThat(volume(r, "data").getPersistentVolumeClaim().getClaimName())
        .isEqualTo("shared-repos");
    assertThat(mountPath(r, "data")).isEqualTo(DATA);
    assertThat(r.deployment().getSpec().getReplicas()).isEqualTo(3);
    assertThat(strategy(r)).isEqualTo("RollingUpdate");
    assertThat(
            render(
                    values(
                        "persistence.existingClaim",
                        "shared-repos",
                        "updateStrategy.type",
                        "Recreate"))
                .deployment()
                .getSpec()
                .getStrategy()
                .getType())
        .isEqualTo("Recreate");
  }

  @Test
  void withoutPersistenceTheRepositoriesAreOnAnEmptyDirAndTheNotesSaySo() {
    Rendered r = render(values("persistence.enabled", false, "persistence.size", "5Gi"));

    assertThat(r.all(PersistentVolumeClaim.class)).isEmpty();
    Volume data = volume(r, "data");
    assertThat(data.getPersistentVolumeClaim()).isNull();
    assertThat(data.getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("5Gi"));
    assertThat(r.env().get("GITOPSHQ_GIT_ROOT").getValue()).isEqualTo(DATA + "/repos");

    assertThat(CHART.notes(values("persistence.enabled", false)))
        .contains("WARNING: persistence.enabled=false", "lost with the pod");
    assertThat(CHART.notes(values("publicUrl", "https://gitopshq.example.com")))
        .contains(
            "data:        PVC gitopshq-agent-gitopshq-hub-data (10Gi, ReadWriteOnce; kept on helm uninstall)",
            "hosted Git:  https://gitopshq.example.com/git/<org>/<project>.git")
        .doesNotContain("persistence.enabled=false", "publicUrl is empty");
  }

  @Test
  void withPostgresStorageTheRepositoriesLeaveTheVolume() {
    // One replica: the data directory keeps its PVC (a generated encryption key lives there).
    Rendered one = render(values("git.storage", "postgres"));
    assertThat(one.env().get("GITOPSHQ_GIT_STORAGE").getValue()).isEqualTo("postgres");
    assertThat(one.env()).doesNotContainKey("GITOPSHQ_GIT_ROOT");
    assertThat(one.get(PersistentVolumeClaim.class, PVC)).isNotNull();
    assertThat(CHART.notes(values("git.storage", "postgres"))).contains("Git storage: postgres");
    // Unknown storages are refused before anything is installed.
    assertThat(CHART.renderError(values("git.storage", "s3")))
        .contains("/git/storage", "file", "postgres");
  }

  @Test
  void theBlockCacheSizeReachesTheHubWithPostgresStorageAndIsBounded() {
    // JGit's default unless set; the file storage has no block cache, so no variable.
    assertThat(render(values("git.storage", "postgres")).env().get("GITOPSHQ_GIT_BLOCK_CACHE_MB"))
        .extracting(EnvVar::getValue)
        .isEqualTo("32");
    assertThat(
            render(values("git.storage", "postgres", "git.blockCacheMiB", 256))
                .env()
                .get("GITOPSHQ_GIT_BLOCK_CACHE_MB")
                .getValue())
        .isEqualTo("256");
    assertThat(render(values("git.blockCacheMiB", 256)).env())
        .doesNotContainKey("GITOPSHQ_GIT_BLOCK_CACHE_MB");
    // What the hub would refuse at start is refused before anything is installed.
    assertThat(CHART.renderError(values("git.storage", "postgres", "git.blockCacheMiB", 2)))
        .contains("/git/blockCacheMiB", "minimum");
    assertThat(CHART.renderError(values("git.storage", "postgres", "git.blockCacheMiB", "64Mi")))
        .contains("/git/blockCacheMiB");
  }

  @Test
  void moreThanOneReplicaNeedsSharedStorageAndOneKey() {
    assertThat(CHART.renderError(values("replicaCount", 2, "encryptionKey.value", ENCRYPTION_KEY)))
        .contains("replicaCount > 1 needs a volume every replica can mount")
        .contains("persistence.accessModes to [ReadWriteMany]", "persistence.existingClaim");
    assertThat(
            CHART.renderError(
                values(
                    "replicaCount",
                    2,
                    "encryptionKey.value",
                    ENCRYPTION_KEY,
                    "persistence.accessModes",
                    List.of("ReadWriteOncePod"))))
        .contains("replicaCount > 1 needs a volume every replica can mount");
    assertThat(
            CHART.renderError(
                values(
                    "replicaCount",
                    2,
                    "encryptionKey.value",
                    ENCRYPTION_KEY,
                    "persistence.enabled",
                    false)))
        .contains("replicaCount > 1 needs persistence.enabled=true on shared storage");
    assertThat(
            CHART.renderError(
                values("replicaCount", 2, "persistence.accessModes", List.of("ReadWriteMany"))))
        .contains("replicaCount > 1 needs one encryption key for all replicas")
        .contains("encryptionKey.existingSecret", "encryptionKey.value");

    assertThat(
            CHART.renderError(
                values(
                    "replicaCount",
                    2,
                    "persistence.accessModes",
                    List.of("ReadWriteMany"),
                    "encryptionKey.existingSecret",
                    "hub-encryption")))
        .contains("replicaCount > 1 needs one peer key for all replicas")
        .contains("peerKey.existingSecret", "peerKey.value");

    Rendered shared =
        render(
            values(
                "replicaCount",
                2,
                "persistence.accessModes",
                List.of("ReadWriteMany"),
                "encryptionKey.existingSecret",
                "hub-encryption",
                "peerKey.existingSecret",
                "hub-peer",
                "peerTls.existingSecret",
                "hub-peer-tls"));
    assertThat(shared.deployment().getSpec().getReplicas()).isEqualTo(2);
    assertThat(shared.get(PersistentVolumeClaim.class, PVC).getSpec().getAccessModes())
        .containsExactly("ReadWriteMany");
    // One replica on a ReadWriteOnce volume, and none at all, are fine.
    assertThat(render(values("replicaCount", 1)).deployment().getSpec().getReplicas()).isEqualTo(1);
    assertThat(render(values("replicaCount", 0)).deployment().getSpec().getReplicas()).isZero();
  }

  @Test
  void aPeerKeyFromAnExistingSecretIsReferencedAndTheReplicaAdvertisesItsPodIp() {
    Rendered r =
        render(values("peerKey.existingSecret", "hub-peer", "peerKey.existingSecretKey", "k"));

    EnvVar key = r.env().get("GITOPSHQ_PEER_KEY");
    assertThat(key.getValue()).isNull();
    assertThat(key.getValueFrom().getSecretKeyRef().getName()).isEqualTo("hub-peer");
    assertThat(key.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("k");
    assertThat(r.env().get("GITOPSHQ_PEER_ADDRESS").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("status.podIP");
    assertThat(r.env().get("GITOPSHQ_PEER_PORT").getValue()).isEqualTo("50052");
    // Without a key the replica forwards nothing and serves no peer port.
    assertThat(render(values()).env()).doesNotContainKey("GITOPSHQ_PEER_KEY");
    assertThat(CHART.renderError(values("peerKey.value", "too-short"))).isNotEmpty();
  }

  @Test
  void anEncryptionKeyFromAnExistingSecretIsReferencedNeverCopied() {
    Rendered r =
        render(
            values(
                "encryptionKey.existingSecret",
                "hub-encryption",
                "encryptionKey.existingSecretKey",
                "aes-key"));

    EnvVar key = r.env().get("GITOPSHQ_ENCRYPTION_KEY");
    assertThat(key.getValue()).isNull();
    SecretKeySelector ref = key.getValueFrom().getSecretKeyRef();
    assertThat(ref.getName()).isEqualTo("hub-encryption");
    assertThat(ref.getKey()).isEqualTo("aes-key");
    assertThat(r.all(Secret.class)).as("the chart has nothing to store").isEmpty();
  }

  @Test
  void anEncryptionKeyValueGoesIntoTheChartsSecretOnly() {
    Rendered r = render(values("encryptionKey.value", ENCRYPTION_KEY));

    EnvVar key = r.env().get("GITOPSHQ_ENCRYPTION_KEY");
    assertThat(key.getValue()).isNull();
    assertThat(key.getValueFrom().getSecretKeyRef().getName()).isEqualTo("gitopshq-gitopshq-hub");
    assertThat(
            r.secretValue("gitopshq-gitopshq-hub", key.getValueFrom().getSecretKeyRef().getKey()))
        .isEqualTo(ENCRYPTION_KEY);
    assertThat(r.manifest()).doesNotContain(ENCRYPTION_KEY);
    // A new key rolls the pods.
    String other = Base64.getEncoder().encodeToString(new byte[32]);
    assertThat(
            render(values("encryptionKey.value", other))
                .deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get("checksum/secret"))
        .isNotEqualTo(
            r.deployment()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations()
                .get("checksum/secret"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "not base64 at all",
        "q83vASNFZ4mrze8BI0VniQ==", // 16 bytes
        "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mr", // 33 bytes
        "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNF", // 30 bytes
        "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k", // unpadded
        "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k=trailing",
      })
  void theSchemaRefusesAnythingButBase64Of32Bytes(String key) {
    assertThat(CHART.renderError(values("encryptionKey.value", key)))
        .contains("values don't meet the specifications of the schema")
        .contains("/encryptionKey/value");
  }

  @Test
  void theSchemaAcceptsWhatOpensslPrints() {
    byte[] raw = new byte[32];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = (byte) (255 - i * 7);
    }
    String key = Base64.getEncoder().encodeToString(raw);
    assertThat(
            render(values("encryptionKey.value", key))
                .secretValue("gitopshq-gitopshq-hub", "GITOPSHQ_ENCRYPTION_KEY"))
        .isEqualTo(key);
    // --set-file keeps the file's newline; the chart stores the key without it.
    assertThat(
            render(values("encryptionKey.value", key + "\n"))
                .secretValue("gitopshq-gitopshq-hub", "GITOPSHQ_ENCRYPTION_KEY"))
        .isEqualTo(key);
    assertThat(
            CHART.renderError(
                values("encryptionKey.value", key, "encryptionKey.existingSecret", "x")))
        .contains("set encryptionKey.value or encryptionKey.existingSecret, not both");
  }

  @Test
  void thePublicUrlIsTheValueOrTheIngressHost() {
    assertThat(
            render(values("publicUrl", "https://git.example.com/hub"))
                .env()
                .get("GITOPSHQ_PUBLIC_URL")
                .getValue())
        .isEqualTo("https://git.example.com/hub");

    Map<String, Object> ingress =
        values(
            "ingress.enabled",
            true,
            "ingress.hosts",
            List.of(Map.of("host", "gitopshq.example.com", "paths", List.of(Map.of("path", "/")))));
    assertThat(render(ingress).env().get("GITOPSHQ_PUBLIC_URL").getValue())
        .isEqualTo("http://gitopshq.example.com");
    Chart.put(
        ingress,
        "ingress.tls",
        List.of(Map.of("secretName", "hub-tls", "hosts", List.of("gitopshq.example.com"))));
    assertThat(render(ingress).env().get("GITOPSHQ_PUBLIC_URL").getValue())
        .isEqualTo("https://gitopshq.example.com");
    Chart.put(ingress, "publicUrl", "https://other.example.com");
    assertThat(render(ingress).env().get("GITOPSHQ_PUBLIC_URL").getValue())
        .isEqualTo("https://other.example.com");

    // Without either, the hub's own default applies, and the notes say clone URLs will be wrong.
    assertThat(render(values()).env()).doesNotContainKey("GITOPSHQ_PUBLIC_URL");
    assertThat(CHART.notes(values())).contains("WARNING: publicUrl is empty");
    assertThat(CHART.renderError(values("publicUrl", "gitopshq.example.com")))
        .contains("/publicUrl");
  }

  @Test
  void theReleaseApprovalTimeoutIsPassedWhenSet() {
    assertThat(
            render(values("releases.approvalTimeout", "72h"))
                .env()
                .get("GITOPSHQ_RELEASE_APPROVAL_TIMEOUT")
                .getValue())
        .isEqualTo("72h");
    assertThat(render(values()).env()).doesNotContainKey("GITOPSHQ_RELEASE_APPROVAL_TIMEOUT");
    assertThat(CHART.renderError(values("releases.approvalTimeout", "three days")))
        .contains("/releases/approvalTimeout");
  }

  @Test
  void theSchemaRefusesMalformedStorageValues() {
    assertThat(CHART.renderError(values("persistence.size", "10 gigabytes")))
        .contains("/persistence/size");
    assertThat(CHART.renderError(values("persistence.accessModes", List.of("ReadWriteAll"))))
        .contains("/persistence/accessModes");
    assertThat(CHART.renderError(values("persistence.accessModes", List.of())))
        .contains("/persistence/accessModes");
    assertThat(CHART.renderError(values("render.sizeLimit", "lots"))).contains("/render/sizeLimit");
    assertThat(CHART.renderError(values("persistence.existingclaim", "typo")))
        .contains("existingclaim");
  }
}
