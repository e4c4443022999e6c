package dev.gitopshq.activities.store;

import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Select;

/** Organizations. */
@Mapper
public interface OrgMapper {
  @Insert(
      "insert into organizations (id, slug, name, plan, created_at)"
          + " values (#{id}, #{slug}, #{name}, #{plan}, #{createdAt})"
          + " on conflict (slug) do nothing")
  int insertIfAbsent(OrgRow org);

  @Select("select id, slug, name, plan, created_at from organizations where slug = #{slug}")
  Optional<OrgRow> findBySlug(String slug);

  @Select("select id, slug, name, plan, created_at from organizations where id = #{id}")
  Optional<OrgRow> findById(UUID id);
}
