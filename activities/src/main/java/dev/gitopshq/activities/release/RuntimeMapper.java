package dev.gitopshq.activities.release;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** The clusters a deployment waits for, and what each of them ran. */
@Mapper
public interface RuntimeMapper {
  /** How long a cluster whose adapter the hub wires gets when its environment sets no timeout. */
  int DEFAULT_TIMEOUT_SECONDS = 600;

  /**
   * The Flux and Argo CD clusters of the named environments of a project that verify their
   * deployments: every cluster whose adapter the hub wires (adapter {@code auto} and an agent with
   * adapter.wire), for the environment's timeout or {@link #DEFAULT_TIMEOUT_SECONDS}, and the other
   * clusters of environments that set a timeout.
   */
  @Select(
      "<script>select e.name as environment, e.position, c.id as cluster_id, c.name as cluster,"
          + " pc.delivery_mode as mode,"
          + " coalesce(e.verify_timeout_s, "
          + DEFAULT_TIMEOUT_SECONDS
          + ") as timeout_seconds"
          + " from project_environment_clusters pc"
          + " join environments e on e.org_id = pc.org_id and e.id = pc.environment_id"
          + " join clusters c on c.org_id = pc.org_id and c.id = pc.cluster_id"
          + " where pc.org_id = #{orgId} and pc.project_id = #{projectId}"
          + " and pc.delivery_mode in ('flux', 'argocd') and (e.verify_timeout_s is not null"
          + " or (c.adapter = 'auto' and 'adapter.wire' = any(c.capabilities)))"
          + " and e.name in"
          + " <foreach item='n' collection='environments' open='(' separator=',' close=')'>#{n}</foreach>"
          + " order by e.position, c.name</script>")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<RuntimeTargetRow> targets(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environments") List<String> environments);

  /** Records the last observation of a cluster; keeps when it was first seen verified. */
  @Insert(
      "insert into deployment_clusters (org_id, deployment_id, environment, cluster_id, cluster,"
          + " mode, verified, deliverer, revision, health, reason, observed_at, verified_at)"
          + " values (#{orgId}, #{deploymentId}, #{environment}, #{clusterId}, #{cluster},"
          + " #{mode}, #{verified}, #{deliverer}, #{revision}, #{health}, #{reason},"
          + " #{observedAt}, #{verifiedAt})"
          + " on conflict (deployment_id, environment, cluster_id) do update set"
          + " verified = excluded.verified, deliverer = excluded.deliverer,"
          + " revision = excluded.revision, health = excluded.health, reason = excluded.reason,"
          + " observed_at = excluded.observed_at,"
          + " verified_at = coalesce(deployment_clusters.verified_at, excluded.verified_at)"
          + " where deployment_clusters.org_id = excluded.org_id")
  void record(DeploymentClusterRow row);

  /** What every watched cluster of a deployment ran, in environment then cluster order. */
  @Select(
      "select org_id, deployment_id, environment, cluster_id, cluster, mode, verified, deliverer,"
          + " revision, health, reason, observed_at, verified_at from deployment_clusters"
          + " where org_id = #{orgId} and deployment_id = #{deploymentId}"
          + " order by environment, cluster")
  List<DeploymentClusterRow> forDeployment(
      @Param("orgId") UUID orgId, @Param("deploymentId") UUID deploymentId);
}
