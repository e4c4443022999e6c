package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** Deliveries: the last generated and last deployed state of each tenant-environment. */
@Mapper
public interface DeliveryMapper {

  /** Records that a deployment wrote the tenant-environment's files. */
  @Insert(
      "insert into deliveries (org_id, project_id, environment_id, tenant_id, deployed_commit,"
          + " deployed_release, deployed_at) values (#{orgId}, #{projectId}, #{environmentId},"
          + " #{tenantId}, #{commit}, #{releaseId}, #{at})"
          + " on conflict (project_id, environment_id, tenant_id) do update"
          + " set deployed_commit = excluded.deployed_commit,"
          + " deployed_release = excluded.deployed_release, deployed_at = excluded.deployed_at")
  int recordDeployed(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("tenantId") UUID tenantId,
      @Param("commit") String commit,
      @Param("releaseId") UUID releaseId,
      @Param("at") Instant at);

  /**
   * Every tenant-environment of the project (its tenants in its environments, in the organization's
   * environment order), with what was generated and deployed for it so far.
   */
  @Select(
      "select pe.project_id, pe.environment_id, e.name as environment, e.position,"
          + " pt.tenant_id, t.name as tenant, dl.generated_commit, dl.generated_at,"
          + " dl.deployed_commit, dl.deployed_release, r.number as deployed_release_number,"
          + " dl.deployed_at"
          + " from project_environments pe"
          + " join environments e on e.org_id = pe.org_id and e.id = pe.environment_id"
          + " join project_tenants pt on pt.org_id = pe.org_id and pt.project_id = pe.project_id"
          + " join tenants t on t.org_id = pt.org_id and t.id = pt.tenant_id"
          + " left join deliveries dl on dl.org_id = pe.org_id and dl.project_id = pe.project_id"
          + " and dl.environment_id = pe.environment_id and dl.tenant_id = pt.tenant_id"
          + " left join releases r on r.org_id = dl.org_id and r.id = dl.deployed_release"
          + " where pe.org_id = #{orgId} and pe.project_id = #{projectId}"
          + " order by e.position, e.name, t.name")
  List<DeliveryRow> list(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);

  /**
   * The cluster's Bindings tab: every tenant-environment of every project whose environment
   * delivers to the cluster, with its last deployment, the delivery mode and, in direct mode, the
   * newest direct apply of the project environment on the cluster.
   */
  @Select(
      "select p.id as project_id, p.name as project, pt.tenant_id, t.name as tenant,"
          + " pc.environment_id, e.name as environment, dl.deployed_commit,"
          + " r.number as deployed_release_number, dl.deployed_at,"
          + " pc.delivery_mode, da.status as direct_status, da.commit as direct_commit,"
          + " da.error as direct_error"
          + " from project_environment_clusters pc"
          + " join projects p on p.org_id = pc.org_id and p.id = pc.project_id"
          + " join environments e on e.org_id = pc.org_id and e.id = pc.environment_id"
          + " join project_tenants pt on pt.org_id = pc.org_id and pt.project_id = pc.project_id"
          + " join tenants t on t.org_id = pt.org_id and t.id = pt.tenant_id"
          + " left join deliveries dl on dl.org_id = pc.org_id and dl.project_id = pc.project_id"
          + " and dl.environment_id = pc.environment_id and dl.tenant_id = pt.tenant_id"
          + " left join releases r on r.org_id = dl.org_id and r.id = dl.deployed_release"
          + " left join lateral (select a.status, a.commit, a.error from direct_applies a"
          + " where a.org_id = pc.org_id and a.project_id = pc.project_id"
          + " and a.environment_id = pc.environment_id and a.cluster_id = pc.cluster_id"
          + " order by a.created_at desc limit 1) da on pc.delivery_mode = 'direct'"
          + " where pc.org_id = #{orgId} and pc.cluster_id = #{clusterId}"
          + " order by p.name, e.position, e.name, t.name")
  List<ClusterBindingRow> forCluster(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);
}
