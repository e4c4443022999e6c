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

/**
 * Maps a {@code List<T>} to a PostgreSQL array of {@code sqlType}; subclasses name the element
 * type.
 */
public abstract class PgArrayTypeHandler<T> extends BaseTypeHandler<List<T>> {
  private final String sqlType;

  protected PgArrayTypeHandler(String sqlType) {
    this.sqlType = sqlType;
  }

  @Override
  public void setNonNullParameter(PreparedStatement ps, int i, List<T> value, JdbcType jdbcType)
      throws SQLException {
    ps.setArray(i, ps.getConnection().createArrayOf(sqlType, value.toArray()));
  }

  @Override
  public List<T> getNullableResult(ResultSet rs, String column) throws SQLException {
    return toList(rs.getArray(column));
  }

  @Override
  public List<T> getNullableResult(ResultSet rs, int index) throws SQLException {
    return toList(rs.getArray(index));
  }

  @Override
  public List<T> getNullableResult(CallableStatement cs, int index) throws SQLException {
    return toList(cs.getArray(index));
  }

  @SuppressWarnings("unchecked")
  private List<T> toList(Array array) throws SQLException {
    if (array == null) {
      return null;
    }
    try {
      return List.copyOf(Arrays.asList((T[]) array.getArray()));
    } finally {
      array.free();
    }
  }
}
