package dev.gitopshq.activities.command;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;

/** Maps a {@code List<UUID>} to PostgreSQL {@code uuid[]} (used for {@code = any(?)}). */
public class UuidArrayTypeHandler extends BaseTypeHandler<List<UUID>> {
  @Override
  public void setNonNullParameter(
      PreparedStatement ps, int i, List<UUID> value, JdbcType jdbcType) throws SQLException {
    ps.setArray(i, ps.getConnection().createArrayOf("uuid", value.toArray()));
  }

  @Override
  public List<UUID> getNullableResult(ResultSet rs, String column) throws SQLException {
    return toList(rs.getArray(column));
  }

  @Override
  public List<UUID> getNullableResult(ResultSet rs, int index) throws SQLException {
    return toList(rs.getArray(index));
  }

  @Override
  public List<UUID> getNullableResult(CallableStatement cs, int index) throws SQLException {
    return toList(cs.getArray(index));
  }

  private static List<UUID> toList(Array array) throws SQLException {
    if (array == null) {
      return null;
    }
    try {
      return List.copyOf(Arrays.asList((UUID[]) array.getArray()));
    } finally {
      array.free();
    }
  }
}
