package dev.gitopshq.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.store.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.scripting.defaults.DefaultParameterHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cluster list's label filter ({@code GET /api/v2/clusters?label=}) is served by the GIN index
 * on the effective labels (V61), not by reading every cluster: the SQL the mapper really sends is
 * explained, with sequential scans priced out, on a table of a few hundred clusters.
 */
class ClusterLabelIndexIT {
  static TestSchema schema;
  static UUID org;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("cluster_label_index_it", ClusterMapper.class);
    org = schema.newOrg();
    UUID other = schema.newOrg();
    for (int i = 0; i < 400; i++) {
      UUID in = i % 2 == 0 ? org : other;
      String labels = i == 10 ? "{\"team\": \"payments\"}" : "{\"n\": \"" + i + "\"}";
      String reported = i == 20 ? "{\"team\": \"payments\", \"zone\": \"a\"}" : "{}";
      schema.exec(
          "insert into clusters (id, org_id, name, labels, reported_labels, created_by,"
              + " created_at, updated_at) values (?, ?, ?, ?::jsonb, ?::jsonb, 'test', now(), now())",
          UUID.randomUUID(),
          in,
          "c-" + i,
          labels,
          reported);
    }
    schema.exec("analyze clusters");
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @Test
  void theLabelFilterFindsHubAndReportedLabels() {
    List<ClusterRow> rows =
        schema.mapper(ClusterMapper.class).list(org, Map.of("team", "payments"));
    assertThat(rows).extracting(ClusterRow::name).containsExactly("c-10", "c-20");
  }

  @Test
  void theLabelFilterUsesTheEffectiveLabelsIndex() throws Exception {
    String plan = plan(Map.of("team", "payments"));
    assertThat(plan).contains("clusters_effective_labels").doesNotContain("Seq Scan");
  }

  /** EXPLAIN of the statement ClusterMapper.list sends, with its parameters bound as it binds. */
  static String plan(Map<String, String> labels) throws Exception {
    MappedStatement list =
        schema.configuration().getMappedStatement(ClusterMapper.class.getName() + ".list");
    Map<String, Object> params = new HashMap<>();
    params.put("orgId", org);
    params.put("labels", labels);
    BoundSql sql = list.getBoundSql(params);
    try (Connection c = schema.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("set local enable_seqscan = off");
      }
      StringBuilder plan = new StringBuilder();
      try (PreparedStatement ps = c.prepareStatement("explain " + sql.getSql())) {
        new DefaultParameterHandler(list, params, sql).setParameters(ps);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
      } finally {
        c.rollback();
      }
      return plan.toString();
    }
  }
}
