package dev.gitopshq.activities.git;

import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * Finds the project behind a hosted repository's URL ({@code /git/<org slug>/<project>.git}) and
 * the names that make up a project's clone URL.
 */
@Mapper
public interface HostedRepoMapper {
  /**
   * The organization a URL's slug names. Like a token lookup, it establishes which organization a
   * Git request is about, so it cannot filter by org_id.
   */
  @Select("select id from organizations where slug = #{slug}")
  Optional<UUID> orgIdBySlug(@Param("slug") String slug);

  @Select("select slug from organizations where id = #{orgId}")
  Optional<String> orgSlug(@Param("orgId") UUID orgId);

  @Select("select id from projects where org_id = #{orgId} and name = #{name}")
  Optional<UUID> projectId(@Param("orgId") UUID orgId, @Param("name") String name);

  @Select("select name from projects where org_id = #{orgId} and id = #{projectId}")
  Optional<String> projectName(@Param("orgId") UUID orgId, @Param("projectId") UUID projectId);
}
