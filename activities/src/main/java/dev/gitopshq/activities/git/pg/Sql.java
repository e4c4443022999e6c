package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Plain JDBC over the hub's pool, in JGit's terms: every failure is an {@link IOException}, which
 * JGit's storage interfaces declare. Each call borrows a connection for one statement (or one
 * transaction) and returns it.
 */
final class Sql {
  private final DataSource db;

  Sql(DataSource db) {
    this.db = db;
  }

  /** What reads one result. */
  @FunctionalInterface
  interface Rows<T> {
    T read(ResultSet rs) throws SQLException, IOException;
  }

  /** What runs inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException, IOException;
  }

  <T> T query(String sql, Rows<T> rows, Object... args) throws IOException {
    try (Connection c = db.getConnection()) {
      return query(c, sql, rows, args);
    } catch (SQLException e) {
      throw new IOException("the Git storage's query failed: " + e.getMessage(), e);
    }
  }

  static <T> T query(Connection c, String sql, Rows<T> rows, Object... args)
      throws SQLException, IOException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, args);
      try (ResultSet rs = ps.executeQuery()) {
        return rows.read(rs);
      }
    }
  }

  int update(String sql, Object... args) throws IOException {
    try (Connection c = db.getConnection()) {
      return update(c, sql, args);
    } catch (SQLException e) {
      throw new IOException("the Git storage's update failed: " + e.getMessage(), e);
    }
  }

  static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, args);
      return ps.executeUpdate();
    }
  }

  /**
   * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws.
   */
  <T> T inTransaction(Work<T> work) throws IOException {
    try (Connection c = db.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        T out = work.run(c);
        c.commit();
        return out;
      } catch (SQLException | IOException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
    } catch (SQLException e) {
      throw new IOException("the Git storage's transaction failed: " + e.getMessage(), e);
    }
  }

  private static void bind(PreparedStatement ps, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      ps.setObject(i + 1, a instanceof UUID u ? u : a);
    }
  }
}
