package dev.gitopshq.activities.identity;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/**
 * Teams and their members. The database keeps {@code members.teams} equal to the names of each
 * member's teams (V55), so approval rules that name teams resolve through these rows.
 */
@Mapper
public interface TeamMapper {
  String COLUMNS = "id, org_id, name, description, created_at";

  @Insert(
      "insert into teams (id, org_id, name, description, created_at)"
          + " values (#{id}, #{orgId}, #{name}, #{description}, #{createdAt})")
  void insert(TeamRow row);

  /** Creates the team {@code name} unless the organization has it already. */
  @Insert(
      "insert into teams (id, org_id, name, description, created_at)"
          + " values (#{id}, #{orgId}, #{name}, #{description}, #{createdAt})"
          + " on conflict (org_id, name) do nothing")
  int insertIfAbsent(TeamRow row);

  @Select("select " + COLUMNS + " from teams where org_id = #{orgId} order by name")
  List<TeamRow> list(@Param("orgId") UUID orgId);

  @Select("select " + COLUMNS + " from teams where org_id = #{orgId} and id = #{id}")
  Optional<TeamRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from teams where org_id = #{orgId} and name = #{name}")
  Optional<TeamRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  @Update(
      "update teams set name = #{name}, description = #{description}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("name") String name,
      @Param("description") String description);

  @Delete("delete from teams where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** The team's live members, one row per membership (a member may be in by hand and by SSO). */
  @Select(
      "select tm.team_id, tm.member_id, m.email, m.name, tm.source, tm.created_at"
          + " from team_members tm join members m on m.org_id = tm.org_id and m.id = tm.member_id"
          + " where tm.org_id = #{orgId} and tm.team_id = #{teamId} and m.removed_at is null"
          + " order by m.email, tm.source")
  List<TeamMemberRow> members(@Param("orgId") UUID orgId, @Param("teamId") UUID teamId);

  /** The number of live members of each team, by team id. */
  @Select(
      "select count(distinct tm.member_id) from team_members tm"
          + " join members m on m.org_id = tm.org_id and m.id = tm.member_id"
          + " where tm.org_id = #{orgId} and tm.team_id = #{teamId} and m.removed_at is null")
  int memberCount(@Param("orgId") UUID orgId, @Param("teamId") UUID teamId);

  @Insert(
      "insert into team_members (org_id, team_id, member_id, source, created_at)"
          + " values (#{orgId}, #{teamId}, #{memberId}, #{source}, now())"
          + " on conflict do nothing")
  int addMember(
      @Param("orgId") UUID orgId,
      @Param("teamId") UUID teamId,
      @Param("memberId") UUID memberId,
      @Param("source") String source);

  @Delete(
      "delete from team_members where org_id = #{orgId} and team_id = #{teamId}"
          + " and member_id = #{memberId} and source = #{source}")
  int removeMember(
      @Param("orgId") UUID orgId,
      @Param("teamId") UUID teamId,
      @Param("memberId") UUID memberId,
      @Param("source") String source);

  /** The names of the teams a member is in through {@code source}. */
  @Select(
      "select t.name from team_members tm join teams t on t.org_id = tm.org_id"
          + " and t.id = tm.team_id where tm.org_id = #{orgId} and tm.member_id = #{memberId}"
          + " and tm.source = #{source} order by t.name")
  List<String> teamNames(
      @Param("orgId") UUID orgId, @Param("memberId") UUID memberId, @Param("source") String source);

  /** Sets members.teams from the member's memberships (the triggers do this on each change). */
  @Select("select refresh_member_teams(#{orgId}, #{memberId})::text")
  String refresh(@Param("orgId") UUID orgId, @Param("memberId") UUID memberId);
}
