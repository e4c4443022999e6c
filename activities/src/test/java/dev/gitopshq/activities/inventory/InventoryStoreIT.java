package dev.gitopshq.activities.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.agent.v1.InventoryDelta;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.agent.v1.InventorySnapshot;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster's inventory on PostgreSQL: snapshots in parts replace it as a whole, deltas change it,
 * listing filters and pages, and nothing crosses organizations.
 */
class InventoryStoreIT {
  static TestSchema schema;
  InventoryStore store;
  UUID org;
  UUID cluster;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("inventory_store_it", InventoryMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void cluster() throws Exception {
    org = schema.newOrg();
    cluster = schema.newCluster(org);
    store =
        new InventoryStore(schema.mapper(InventoryMapper.class), schema.tx(), Clock.systemUTC());
  }

  static InventoryObject obj(String uid, String kind, String ns, String name, String... labels) {
    InventoryObject.Builder b =
        InventoryObject.newBuilder()
            .setUid(uid)
            .setGroup(kind.equals("Deployment") ? "apps" : "")
            .setVersion("v1")
            .setKind(kind)
            .setNamespace(ns)
            .setName(name)
            .setStatus("ok")
            .setHealth("Healthy");
    for (int i = 0; i + 1 < labels.length; i += 2) {
      b.putLabels(labels[i], labels[i + 1]);
    }
    return b.build();
  }

  static InventorySnapshot part(String id, int part, boolean last, InventoryObject... objects) {
    return InventorySnapshot.newBuilder()
        .setSnapshotId(id)
        .setPart(part)
        .setLast(last)
        .addAllObjects(List.of(objects))
        .build();
  }

  List<String> names(ResourceQuery q) {
    return store.list(org, cluster, q).stream().map(ResourceRow::name).toList();
  }

  static ResourceQuery all() {
    return new ResourceQuery(null, null, Map.of(), null, null, null, 100);
  }

  @Test
  void aFinishedSnapshotReplacesTheInventoryAndDeltasChangeIt() throws Exception {
    store.snapshot(org, cluster, part("s1", 0, true, obj("u1", "Pod", "shop", "old-pod")));
    assertThat(names(all())).containsExactly("old-pod");

    // A new snapshot in two parts: until the last part, the old object is still there.
    store.snapshot(org, cluster, part("s2", 0, false, obj("u2", "Pod", "shop", "web-1")));
    assertThat(names(all())).containsExactlyInAnyOrder("old-pod", "web-1");
    var applied =
        store.snapshot(
            org,
            cluster,
            part(
                "s2",
                1,
                true,
                obj("u3", "Deployment", "shop", "web"),
                obj("u4", "Node", "", "n1")));
    assertThat(applied.removed()).isEqualTo(1);
    assertThat(names(all())).containsExactly("n1", "web", "web-1");
    InventoryRow inv = store.find(org, cluster).orElseThrow();
    assertThat(inv.objects()).isEqualTo(3);
    assertThat(inv.snapshotId()).isEqualTo("s2");

    store.delta(
        org,
        cluster,
        InventoryDelta.newBuilder()
            .addUpserts(obj("u2", "Pod", "shop", "web-1", "v", "2"))
            .addUpserts(obj("u5", "Pod", "shop", "web-2"))
            .addDeletedUids("u4")
            .build());
    assertThat(names(all())).containsExactly("web", "web-1", "web-2");
    assertThat(store.find(org, cluster).orElseThrow().objects()).isEqualTo(3);
    assertThat(store.counts(org, cluster))
        .containsExactly(new KindCount("shop", "Deployment", 1), new KindCount("shop", "Pod", 2));

    // The next snapshot keeps what the deltas added if it carries it, and only that.
    store.snapshot(org, cluster, part("s3", 0, true, obj("u5", "Pod", "shop", "web-2")));
    assertThat(names(all())).containsExactly("web-2");
  }

  @Test
  void listingFiltersByNamespaceKindLabelAndNameAndPagesWithoutGapsOrRepeats() {
    InventoryObject[] objects =
        IntStream.range(0, 25)
            .mapToObj(
                i ->
                    obj(
                        "p" + i,
                        "Pod",
                        i % 2 == 0 ? "shop" : "pay",
                        String.format("pod-%02d", i),
                        "app",
                        i % 3 == 0 ? "web" : "worker"))
            .toArray(InventoryObject[]::new);
    store.snapshot(org, cluster, part("s", 0, true, objects));

    assertThat(names(new ResourceQuery("pay", null, Map.of(), null, null, null, 100))).hasSize(12);
    assertThat(names(new ResourceQuery(null, "Deployment", Map.of(), null, null, null, 100)))
        .isEmpty();
    assertThat(names(new ResourceQuery(null, null, Map.of("app", "web"), null, null, null, 100)))
        .hasSize(9);
    assertThat(names(new ResourceQuery(null, null, Map.of(), "app", null, null, 100))).hasSize(25);
    assertThat(names(new ResourceQuery(null, null, Map.of(), "tier", null, null, 100))).isEmpty();
    assertThat(names(new ResourceQuery(null, null, Map.of(), null, "POD-1", null, 100)))
        .containsExactlyInAnyOrder(
            "pod-10", "pod-11", "pod-12", "pod-13", "pod-14", "pod-15", "pod-16", "pod-17",
            "pod-18", "pod-19");

    List<String> paged = new java.util.ArrayList<>();
    ResourceQuery.Cursor after = null;
    for (int page = 0; page < 10; page++) {
      List<ResourceRow> rows =
          store.list(org, cluster, new ResourceQuery(null, null, Map.of(), null, null, after, 10));
      rows.forEach(r -> paged.add(r.name()));
      if (rows.size() < 10) {
        break;
      }
      ResourceRow last = rows.get(rows.size() - 1);
      after = new ResourceQuery.Cursor(last.namespace(), last.kind(), last.name(), last.uid());
    }
    assertThat(paged).hasSize(25).doesNotHaveDuplicates();
  }

  @Test
  void anotherOrganizationsClusterCanNeitherBeWrittenNorRead() throws Exception {
    store.snapshot(org, cluster, part("s", 0, true, obj("u1", "Pod", "shop", "web-1")));
    UUID other = schema.newOrg();

    assertThatThrownBy(
            () -> store.snapshot(other, cluster, part("x", 0, true, obj("u9", "Pod", "x", "evil"))))
        .isInstanceOf(RuntimeException.class);
    store.delta(other, cluster, InventoryDelta.newBuilder().addDeletedUids("u1").build());

    assertThat(store.list(other, cluster, all())).isEmpty();
    assertThat(store.find(other, cluster)).isEmpty();
    assertThat(names(all())).containsExactly("web-1");
  }

  @Test
  void objectsWithoutIdentityAreSkippedAndOversizedMessagesRefused() {
    var applied =
        store.snapshot(
            org,
            cluster,
            part(
                "s",
                0,
                true,
                obj("", "Pod", "shop", "no-uid"),
                obj("u1", "Pod", "shop", "x".repeat(400)),
                obj("u2", "", "shop", "no-kind")));
    assertThat(applied.skipped()).isEqualTo(2);
    assertThat(names(all())).containsExactly("x".repeat(253));

    InventoryObject[] tooMany =
        IntStream.range(0, InventoryStore.MAX_OBJECTS_PER_MESSAGE + 1)
            .mapToObj(i -> obj("m" + i, "Pod", "shop", "p" + i))
            .toArray(InventoryObject[]::new);
    assertThatThrownBy(() -> store.snapshot(org, cluster, part("big", 0, true, tooMany)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 1000 objects");
  }
}
