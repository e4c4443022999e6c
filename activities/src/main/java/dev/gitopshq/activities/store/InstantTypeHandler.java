package dev.gitopshq.activities.store;

import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;
import org.apache.ibatis.type.MappedTypes;

/**
 * Maps {@link Instant} to {@code timestamptz} through {@link OffsetDateTime} in UTC, so neither the
 * JVM's nor the session's time zone can shift a value.
 */
@MappedTypes(Instant.class)
public class InstantTypeHandler extends BaseTypeHandler<Instant> {
  @Override
  public void setNonNullParameter(PreparedStatement ps, int i, Instant value, JdbcType jdbcType)
      throws SQLException {
    ps.setObject(i, value.atOffset(ZoneOffset.UTC));
  }

  @Override
  public Instant getNullableResult(ResultSet rs, String column) throws SQLException {
    return toInstant(rs.getObject(column, OffsetDateTime.class));
  }

  @Override
  public Instant getNullableResult(ResultSet rs, int index) throws SQLException {
    return toInstant(rs.getObject(index, OffsetDateTime.class));
  }

  @Override
  public Instant getNullableResult(CallableStatement cs, int index) throws SQLException {
    return toInstant(cs.getObject(index, OffsetDateTime.class));
  }

  private static Instant toInstant(OffsetDateTime value) {
    return value == null ? null : value.toInstant();
  }
}
