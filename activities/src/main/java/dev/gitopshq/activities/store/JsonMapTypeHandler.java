package dev.gitopshq.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.ibatis.type.BaseTypeHandler;
import org.apache.ibatis.type.JdbcType;
import org.apache.ibatis.type.MappedTypes;

/** Maps a {@code Map<String, String>} (labels) to PostgreSQL {@code jsonb}, keys sorted. */
@MappedTypes(Map.class)
public class JsonMapTypeHandler extends BaseTypeHandler<Map<String, String>> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<TreeMap<String, String>> TYPE = new TypeReference<>() {};

  @Override
  public void setNonNullParameter(
      PreparedStatement ps, int i, Map<String, String> value, JdbcType jdbcType)
      throws SQLException {
    try {
      ps.setObject(i, JSON.writeValueAsString(new TreeMap<>(value)), Types.OTHER);
    } catch (JsonProcessingException e) {
      throw new SQLException("labels are not serializable", e);
    }
  }

  @Override
  public Map<String, String> getNullableResult(ResultSet rs, String column) throws SQLException {
    return parse(rs.getString(column));
  }

  @Override
  public Map<String, String> getNullableResult(ResultSet rs, int index) throws SQLException {
    return parse(rs.getString(index));
  }

  @Override
  public Map<String, String> getNullableResult(CallableStatement cs, int index)
      throws SQLException {
    return parse(cs.getString(index));
  }

  private static Map<String, String> parse(String json) throws SQLException {
    if (json == null) {
      return null;
    }
    try {
      return Collections.unmodifiableMap(JSON.readValue(json, TYPE));
    } catch (JsonProcessingException e) {
      throw new SQLException("stored labels are not a JSON object of strings", e);
    }
  }
}
