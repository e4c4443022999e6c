package dev.gitopshq.activities.governance;

import org.apache.ibatis.builder.annotation.ProviderContext;

/**
 * The SQL of {@link GovernedStore}, once for every governed subject: MyBatis asks it for each
 * statement of a mapper that extends {@link GovernedStore}, and the mapper's {@link GovernedTables}
 * name the tables. Every statement filters by the organization.
 */
public final class GovernedSql {
  private GovernedSql() {}

  public static String insertEvent(ProviderContext context) {
    GovernedTables t = tables(context);
    return "insert into "
        + t.events()
        + " (org_id, "
        + t.subjectColumn()
        + ", seq, at, status, actor, detail)"
        + " values (#{orgId}, #{id}, #{seq}, #{at}, #{status}, #{actor}, #{detail})"
        + " on conflict ("
        + t.subjectColumn()
        + ", seq) do nothing";
  }

  public static String updateStatus(ProviderContext context) {
    return "update "
        + tables(context).subjects()
        + " set status = #{status}, status_detail = #{detail}, updated_at = #{now},"
        + " finished_at = case when #{terminal} then #{now} else finished_at end"
        + " where org_id = #{orgId} and id = #{id}";
  }

  public static String updateDetail(ProviderContext context) {
    return "update "
        + tables(context).subjects()
        + " set status_detail = #{detail}, updated_at = #{now}"
        + " where org_id = #{orgId} and id = #{id}";
  }

  public static String recordDecision(ProviderContext context) {
    return "update "
        + tables(context).subjects()
        + " set policy_name = #{policy}, policy_version = #{version},"
        + " policy_sha256 = #{sha256}, decision_outcome = #{outcome},"
        + " decision_reasons = #{reasons,typeHandler="
        + "dev.gitopshq.activities.store.StringListTypeHandler},"
        + " decision_input = cast(#{input} as jsonb), decided_at = #{now},"
        + " updated_at = #{now} where org_id = #{orgId} and id = #{id}";
  }

  private static GovernedTables tables(ProviderContext context) {
    GovernedTables t = context.getMapperType().getAnnotation(GovernedTables.class);
    if (t == null) {
      throw new IllegalStateException(
          context.getMapperType().getName() + " extends GovernedStore without @GovernedTables");
    }
    return t;
  }
}
