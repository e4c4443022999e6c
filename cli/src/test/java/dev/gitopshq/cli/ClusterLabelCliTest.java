package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code clusters label}, kubectl style, against a stand-in for the hub's REST API. */
class ClusterLabelCliTest {
  static final String CLUSTER = "44444444-4444-4444-4444-444444444444";
  static final String LIST = "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"edge-1\"}]}";
  static final String VIEW =
      "{\"id\":\""
          + CLUSTER
          + "\",\"name\":\"edge-1\",\"labels\":{\"tier\":\"staging\",\"zone\":\"a\"},"
          + "\"reportedLabels\":{\"region\":\"eu\"},"
          + "\"effectiveLabels\":{\"region\":\"eu\",\"tier\":\"staging\",\"zone\":\"a\"}}";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void setsAndRemovesLabelsWithOnePatchKeepingTheOthers() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("GET /api/v2/clusters/" + CLUSTER, VIEW);
    hub.answer("PATCH /api/v2/clusters/" + CLUSTER, VIEW);

    Run.Result r = hub.run(tmp, "clusters", "label", "edge-1", "team=shop", "zone-");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PATCH /api/v2/clusters/" + CLUSTER).toString())
        .isEqualTo("{\"labels\":{\"team\":\"shop\",\"tier\":\"staging\"}}");
    assertThat(r.out()).contains("Reported labels").contains("region");
  }

  @Test
  void changingASetValueNeedsOverwrite() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("GET /api/v2/clusters/" + CLUSTER, VIEW);
    hub.answer("PATCH /api/v2/clusters/" + CLUSTER, VIEW);

    Run.Result refused = hub.run(tmp, "clusters", "label", "edge-1", "tier=production");
    assertThat(refused.code()).isEqualTo(ExitCode.USAGE);
    assertThat(refused.err()).contains("--overwrite");
    assertThat(hub.received).doesNotContainKey("PATCH /api/v2/clusters/" + CLUSTER);

    Run.Result done = hub.run(tmp, "clusters", "label", "edge-1", "tier=production", "--overwrite");
    assertThat(done.code()).as(done.toString()).isZero();
    assertThat(hub.received.get("PATCH /api/v2/clusters/" + CLUSTER).toString())
        .isEqualTo("{\"labels\":{\"tier\":\"production\",\"zone\":\"a\"}}");
  }

  @Test
  void anArgumentThatIsNeitherSetNorRemoveIsAUsageError() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("GET /api/v2/clusters/" + CLUSTER, VIEW);

    Run.Result r = hub.run(tmp, "clusters", "label", "edge-1", "tier");

    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
    assertThat(r.err()).contains("'tier' is neither key=value (set) nor key- (remove)");
  }
}
