package dev.gitopshq.activities.sqltypes;

import dev.gitopshq.activities.store.PgArrayTypeHandler;
import java.util.UUID;

/** Maps a {@code List<UUID>} to PostgreSQL {@code uuid[]} (used for {@code = any(?)}). */
public class UuidArrayTypeHandler extends PgArrayTypeHandler<UUID> {
  public UuidArrayTypeHandler() {
    super("uuid");
  }
}
