package dev.gitopshq.activities.delivery;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** The environments of projects and the clusters each delivers to. */
@Mapper
public interface ProjectEnvironmentMapper {
  /** The project's environments in the organization's order. */
  @Select(
      "select pe.org_id, pe.project_id, pe.environment_id, e.name as environment, e.position,"
          + " pe.namespace_pattern, pe.create_namespace, pe.cluster_selector::text,"
          + " pe.selector_delivery_mode from project_environments pe"
          + " join environments e"
          + " on e.org_id = pe.org_id and e.id = pe.environment_id"
          + " where pe.org_id = #{orgId} and pe.project_id = #{projectId} order by e.position, e.name")
  List<ProjectEnvironmentRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** Creates or updates the project environment; returns the rows touched. */
  @Insert(
      "insert into project_environments (org_id, project_id, environment_id, namespace_pattern)"
          + " values (#{orgId}, #{projectId}, #{environmentId}, #{namespacePattern})"
          + " on conflict (project_id, environment_id) do update"
          + " set namespace_pattern = excluded.namespace_pattern")
  int upsert(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("namespacePattern") String namespacePattern);

  /** Sets whether the delivery writes the environment's Namespace objects. */
  @Update(
      "update project_environments set create_namespace = #{createNamespace}"
          + " where org_id = #{orgId} and project_id = #{projectId}"
          + " and environment_id = #{environmentId}")
  int setCreateNamespace(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("createNamespace") boolean createNamespace);

  /**
   * Sets the environment's cluster selector (JSON, or null for none) and the delivery mode of the
   * clusters it binds.
   */
  @Update(
      "update project_environments set cluster_selector = #{selector}::jsonb,"
          + " selector_delivery_mode = #{deliveryMode}"
          + " where org_id = #{orgId} and project_id = #{projectId}"
          + " and environment_id = #{environmentId}")
  int setSelector(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("selector") String selector,
      @Param("deliveryMode") String deliveryMode);

  /** Every project environment of the organization that has a cluster selector. */
  @Select(
      "select pe.org_id, pe.project_id, pe.environment_id, e.name as environment, e.position,"
          + " pe.namespace_pattern, pe.create_namespace, pe.cluster_selector::text,"
          + " pe.selector_delivery_mode from project_environments pe"
          + " join environments e on e.org_id = pe.org_id and e.id = pe.environment_id"
          + " where pe.org_id = #{orgId} and pe.cluster_selector is not null"
          + " order by pe.project_id, e.position, e.name")
  List<ProjectEnvironmentRow> listSelecting(@Param("orgId") UUID orgId);

  /** Removes it with its clusters, values and binding targets (foreign keys cascade). */
  @Delete(
      "delete from project_environments"
          + " where org_id = #{orgId} and project_id = #{projectId} and environment_id = #{environmentId}")
  int delete(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  /** Every cluster of every environment of the project, by cluster name. */
  @Select(
      "select pc.org_id, pc.project_id, pc.environment_id, pc.cluster_id, c.name as cluster,"
          + " pc.overrides, pc.delivery_mode, pc.by_name, pc.by_selector"
          + " from project_environment_clusters pc join clusters c"
          + " on c.org_id = pc.org_id and c.id = pc.cluster_id"
          + " where pc.org_id = #{orgId} and pc.project_id = #{projectId} order by c.name")
  List<ProjectEnvironmentClusterRow> clusters(
      @Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /** One cluster's places in the organization's project environments, named or selected. */
  @Select(
      "select pc.org_id, pc.project_id, pc.environment_id, pc.cluster_id, c.name as cluster,"
          + " pc.overrides, pc.delivery_mode, pc.by_name, pc.by_selector"
          + " from project_environment_clusters pc join clusters c"
          + " on c.org_id = pc.org_id and c.id = pc.cluster_id"
          + " where pc.org_id = #{orgId} and pc.cluster_id = #{clusterId}")
  List<ProjectEnvironmentClusterRow> placesOf(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /** Removes every cluster of the environment, named or selected. */
  @Delete(
      "delete from project_environment_clusters"
          + " where org_id = #{orgId} and project_id = #{projectId} and environment_id = #{environmentId}")
  int deleteClusters(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  /** Binds a cluster the environment names. */
  @Insert(
      "insert into project_environment_clusters (org_id, project_id, environment_id, cluster_id,"
          + " overrides, delivery_mode) values (#{orgId}, #{projectId}, #{environmentId},"
          + " #{clusterId}, #{overrides}::jsonb, #{deliveryMode})")
  void insertCluster(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("clusterId") UUID clusterId,
      @Param("overrides") String overrides,
      @Param("deliveryMode") String deliveryMode);

  /**
   * Marks a cluster as matched by the environment's selector: a named cluster keeps its overrides
   * and delivery mode; another is bound with none and the selector's delivery mode.
   */
  @Insert(
      "insert into project_environment_clusters (org_id, project_id, environment_id, cluster_id,"
          + " overrides, delivery_mode, by_name, by_selector) values (#{orgId}, #{projectId},"
          + " #{environmentId}, #{clusterId}, '{}'::jsonb, #{deliveryMode}, false, true)"
          + " on conflict (project_id, environment_id, cluster_id) do update set by_selector = true")
  void select(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("clusterId") UUID clusterId,
      @Param("deliveryMode") String deliveryMode);

  /** A cluster its selector no longer matches and the environment does not name leaves it. */
  @Delete(
      "delete from project_environment_clusters where org_id = #{orgId}"
          + " and project_id = #{projectId} and environment_id = #{environmentId}"
          + " and cluster_id = #{clusterId} and not by_name")
  int unselect(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("clusterId") UUID clusterId);

  /** A named cluster its selector no longer matches stays, bound by name only. */
  @Update(
      "update project_environment_clusters set by_selector = false where org_id = #{orgId}"
          + " and project_id = #{projectId} and environment_id = #{environmentId}"
          + " and cluster_id = #{clusterId} and by_name")
  int unselectNamed(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("clusterId") UUID clusterId);
}
