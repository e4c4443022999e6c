package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.release.RollbackScope.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a deployment changes, object by object, as the release policy reads it: objects added,
 * changed and removed per environment and cluster, flagged RBAC and cluster-scoped, container
 * images old to new, bounded lists with exact totals, and a rollback that counts only its scope.
 */
class DeploymentChangesTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID PROJECT = UUID.randomUUID();
  static final Ident ADA = Ident.of("member", "m1", "Ada");

  @TempDir Path root;
  ProjectRepos repos;
  DeployWriter writer;

  @BeforeEach
  void setUp() {
    repos = new ProjectRepos(root);
    repos.create(ORG, PROJECT);
    writer = new DeployWriter(repos);
  }

  @AfterEach
  void tearDown() {
    repos.close();
  }

  static String deployment(String name, String image) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: %s
          namespace: shop
        spec:
          template:
            spec:
              initContainers:
                - name: migrate
                  image: %s
              containers:
                - name: app
                  image: %s
        """
        .formatted(name, image, image);
  }

  static final String ADMIN_BINDING =
      """
      # Source: chart/templates/crb.yaml
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata:
        name: web-admin
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
      subjects: [{kind: ServiceAccount, name: web, namespace: shop}]
      """;

  static final String CONFIG =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: web, namespace: shop}
      data: {color: blue}
      """;

  ObjectId render(String env, Map<String, String> files) {
    List<TreeEdit> edits = new ArrayList<>();
    edits.add(TreeEdit.delete("rendered/" + env));
    files.forEach(
        (p, c) ->
            edits.add(
                TreeEdit.file("rendered/" + env + "/" + p, c.getBytes(StandardCharsets.UTF_8))));
    return repos.commit(ORG, PROJECT, ProjectRepos.MAIN, null, edits, Ident.HUB, "render").commit();
  }

  ObjectNode deployChanges(DeploymentChanges changes, String env, ObjectId source) {
    return changes.compute(
        ORG, PROJECT, List.of(writer.planDeploy(ORG, PROJECT, env, source).orElseThrow()));
  }

  void deploy(String env, ObjectId source) {
    writer.deploy(ORG, PROJECT, env, source, ADA, "deploy", "release");
  }

  @Test
  void aFirstDeployAddsEveryObjectAndFlagsTheClusterRoleBinding() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("c1/acme/web/deployment-web.yaml", deployment("web", "shop/web:1.0"));
    files.put("c1/acme/web/clusterrolebinding-web-admin.yaml", ADMIN_BINDING);
    ObjectId source = render("dev", files);

    ObjectNode c = deployChanges(new DeploymentChanges(repos), "dev", source);

    assertThat(c.get("summary").toString())
        .isEqualTo(
            "{\"added\":2,\"changed\":0,\"removed\":0,\"cluster_scoped\":1,\"rbac\":1,"
                + "\"sensitive\":1,\"images\":2,\"unreadable\":0}");
    JsonNode cluster = c.get("environments").get(0).get("clusters").get(0);
    assertThat(c.get("environments").get(0).get("name").asText()).isEqualTo("dev");
    assertThat(cluster.get("name").asText()).isEqualTo("c1");
    assertThat(cluster.get("added").get(0).toString())
        .isEqualTo(
            "{\"group\":\"rbac.authorization.k8s.io\",\"version\":\"v1\","
                + "\"kind\":\"ClusterRoleBinding\",\"namespace\":\"\",\"name\":\"web-admin\","
                + "\"cluster_scoped\":true,\"rbac\":true}");
    assertThat(cluster.get("added").get(1).get("kind").asText()).isEqualTo("Deployment");
    assertThat(cluster.get("added").get(1).get("group").asText()).isEqualTo("apps");
    assertThat(c.get("images").get(1).toString())
        .isEqualTo(
            "{\"environment\":\"dev\",\"cluster\":\"c1\",\"namespace\":\"shop\","
                + "\"kind\":\"Deployment\",\"name\":\"web\",\"container\":\"app\","
                + "\"from\":\"\",\"to\":\"shop/web:1.0\"}");
    assertThat(c.get("truncated").asBoolean()).isFalse();
  }

  @Test
  void anImageBumpIsOneChangedObjectWithItsContainersOldAndNewImage() {
    deploy(
        "dev",
        render(
            "dev",
            Map.of(
                "c1/acme/web/deployment-web.yaml",
                deployment("web", "shop/web:1.0"),
                "c1/acme/web/configmap-web.yaml",
                CONFIG)));
    // Helm's text differs (a comment) but the object does not: not a change.
    ObjectId next =
        render(
            "dev",
            Map.of(
                "c1/acme/web/deployment-web.yaml",
                deployment("web", "shop/web:1.1"),
                "c1/acme/web/configmap-web.yaml",
                "# Source: web/configmap.yaml\n" + CONFIG));

    ObjectNode c = deployChanges(new DeploymentChanges(repos), "dev", next);

    assertThat(c.get("summary").get("changed").asLong()).isEqualTo(1);
    assertThat(c.get("summary").get("added").asLong()).isZero();
    assertThat(c.get("summary").get("sensitive").asLong()).isZero();
    assertThat(c.get("images")).hasSize(2);
    assertThat(c.get("images").get(0).get("container").asText()).isEqualTo("migrate");
    assertThat(c.get("images").get(1).get("from").asText()).isEqualTo("shop/web:1.0");
    assertThat(c.get("images").get(1).get("to").asText()).isEqualTo("shop/web:1.1");
  }

  @Test
  void removingAFileRemovesItsObjectsAndAnUnchangedReleaseChangesNothing() {
    ObjectId first =
        render(
            "dev",
            Map.of(
                "c1/acme/web/deployment-web.yaml",
                deployment("web", "shop/web:1.0"),
                "c2/acme/web/clusterrolebinding-web-admin.yaml",
                ADMIN_BINDING));
    deploy("dev", first);
    assertThat(deployChanges(new DeploymentChanges(repos), "dev", first).get("summary").toString())
        .contains("\"added\":0,\"changed\":0,\"removed\":0");

    ObjectId second =
        render("dev", Map.of("c1/acme/web/deployment-web.yaml", deployment("web", "shop/web:1.0")));
    ObjectNode c = deployChanges(new DeploymentChanges(repos), "dev", second);

    assertThat(c.get("summary").get("removed").asLong()).isEqualTo(1);
    assertThat(c.get("summary").get("rbac").asLong()).isEqualTo(1);
    JsonNode clusters = c.get("environments").get(0).get("clusters");
    assertThat(clusters).hasSize(1);
    assertThat(clusters.get(0).get("name").asText()).isEqualTo("c2");
    assertThat(clusters.get(0).get("removed").get(0).get("name").asText()).isEqualTo("web-admin");
  }

  @Test
  void theItemsOfAListAreTheObjects() {
    String list =
        """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: web-admin}
          - apiVersion: v1
            kind: ConfigMap
            metadata: {name: web, namespace: shop}
        """;
    ObjectNode c =
        deployChanges(
            new DeploymentChanges(repos),
            "dev",
            render("dev", Map.of("c1/acme/web/list-everything.yaml", list)));

    assertThat(c.get("summary").get("added").asLong()).isEqualTo(2);
    assertThat(c.get("summary").get("rbac").asLong()).isEqualTo(1);
    assertThat(c.get("summary").get("unreadable").asLong()).isZero();
  }

  @Test
  void listsAreBoundedWhileTotalsStayExact() {
    Map<String, String> files = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      files.put("c1/acme/web/configmap-" + i + ".yaml", CONFIG.replace("name: web", "name: c" + i));
    }
    ObjectNode c = deployChanges(new DeploymentChanges(repos, 5), "dev", render("dev", files));

    assertThat(c.get("summary").get("added").asLong()).isEqualTo(12);
    JsonNode cluster = c.get("environments").get(0).get("clusters").get(0);
    assertThat(cluster.get("added")).hasSize(5);
    assertThat(cluster.get("counts").get("added").asLong()).isEqualTo(12);
    assertThat(c.get("truncated").asBoolean()).isTrue();
  }

  @Test
  void aFileThatIsNotKubernetesYamlIsUnreadableAndOtherFilesAreNotObjects() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("c1/acme/web/broken.yaml", "kind: [unclosed");
    files.put("c1/acme/web/nokind.yaml", "apiVersion: v1\nmetadata: {name: x}\n");
    files.put("_bases/common/app.properties", "color=blue");
    files.put("_bases/common/role.yaml", ADMIN_BINDING.replace("ClusterRoleBinding", "Role"));
    ObjectNode c = deployChanges(new DeploymentChanges(repos), "dev", render("dev", files));

    assertThat(c.get("summary").get("unreadable").asLong()).isEqualTo(2);
    assertThat(c.get("summary").get("added").asLong()).isEqualTo(1);
    JsonNode clusters = c.get("environments").get(0).get("clusters");
    assertThat(clusters.get(0).get("name").asText()).isEqualTo("_bases");
    assertThat(clusters.get(0).get("added").get(0).get("rbac").asBoolean()).isTrue();
    assertThat(clusters.get(0).get("added").get(0).get("cluster_scoped").asBoolean()).isFalse();
    assertThat(clusters.get(1).get("unreadable").toString())
        .isEqualTo("[\"c1/acme/web/broken.yaml\",\"c1/acme/web/nokind.yaml\"]");
  }

  @Test
  void aScopedRollbackCountsOnlyTheUnitsItRestores() {
    ObjectId old =
        render(
            "dev",
            Map.of(
                "c1/acme/web/deployment-web.yaml", deployment("web", "shop/web:1.0"),
                "c1/globex/web/deployment-web.yaml", deployment("web", "shop/web:1.0")));
    ObjectId now =
        render(
            "dev",
            Map.of(
                "c1/acme/web/deployment-web.yaml", deployment("web", "shop/web:2.0"),
                "c1/globex/web/deployment-web.yaml", deployment("web", "shop/web:2.0"),
                "c1/globex/web/clusterrolebinding-web-admin.yaml", ADMIN_BINDING));
    deploy("dev", now);
    RollbackScope acme = RollbackScope.of(List.of(new Entry(null, "acme", null)));

    ObjectNode c =
        new DeploymentChanges(repos)
            .compute(
                ORG,
                PROJECT,
                List.of(writer.planRollback(ORG, PROJECT, "dev", old, acme).orElseThrow()));

    assertThat(c.get("summary").toString())
        .contains("\"added\":0,\"changed\":1,\"removed\":0,\"cluster_scoped\":0,\"rbac\":0");
    assertThat(c.get("images").get(1).get("to").asText()).isEqualTo("shop/web:1.0");

    ObjectNode all =
        new DeploymentChanges(repos)
            .compute(
                ORG,
                PROJECT,
                List.of(
                    writer
                        .planRollback(ORG, PROJECT, "dev", old, RollbackScope.ALL)
                        .orElseThrow()));
    assertThat(all.get("summary").toString())
        .contains("\"added\":0,\"changed\":2,\"removed\":1,\"cluster_scoped\":1,\"rbac\":1");
  }
}
