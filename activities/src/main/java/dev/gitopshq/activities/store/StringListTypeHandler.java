package dev.gitopshq.activities.store;

import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;
import org.apache.ibatis.type.MappedTypes;

/** Maps {@code List<String>} to PostgreSQL {@code text[]}. */
@MappedTypes(List.class)
public class StringListTypeHandler extends BaseTypeHandler<List<String>> {
  @Override
  public void setNonNullParameter(
      PreparedStatement ps, int i, List<String> value, JdbcType jdbcType) throws SQLException {
    ps.setArray(i, ps.getConnection().createArrayOf("text", value.toArray(String[]::new)));
  }

  @Override
  public List<String> getNullableResult(ResultSet rs, String column) throws SQLException {
    return toList(rs.getArray(column));
  }

  @Override
  public List<String> getNullableResult(ResultSet rs, int index) throws SQLException {
    return toList(rs.getArray(index));
  }

  @Override
  public List<String> getNullableResult(CallableStatement cs, int index) throws SQLException {
    return toList(cs.getArray(index));
  }

  private static List<String> toList(Array array) throws SQLException {
    if (array == null) {
      return null;
    }
    try {
      return List.copyOf(Arrays.asList((String[]) array.getArray()));
    } finally {
      array.free();
    }
  }
}
