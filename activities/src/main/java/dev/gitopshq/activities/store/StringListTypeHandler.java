package dev.gitopshq.activities.store;

import java.util.List;
import org.apache.ibatis.type.MappedTypes;

/** Maps {@code List<String>} to PostgreSQL {@code text[]}. */
@MappedTypes(List.class)
public class StringListTypeHandler extends PgArrayTypeHandler<String> {
  public StringListTypeHandler() {
    super("text");
  }
}
