package dev.gitopshq.activities.store;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;

/**
 * A fresh schema of the real test database (GITOPSHQ_TEST_DB_URL) for a test of one migration on
 * the data made before it: {@link #upTo} migrates the schema to the version before the one under
 * test, the test writes its old rows ({@link #exec}), then {@link #migrate} runs the rest.
 */
public final class MigrationSchema implements AutoCloseable {
  private final HikariDataSource db;
  private final String schema;

  private MigrationSchema(HikariDataSource db, String schema) {
    this.db = db;
    this.schema = schema;
  }

  /** A pool on {@code schema} of the test database, which is dropped first. */
  static HikariDataSource emptySchema(String schema, int poolSize) throws SQLException {
    String url =
        System.getenv()
            .getOrDefault("GITOPSHQ_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/gitopshq_test");
    HikariDataSource db = new HikariDataSource();
    db.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    db.setUsername(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_USER", "gitopshq"));
    db.setPassword(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_PASSWORD", "gitopshq"));
    db.setMaximumPoolSize(poolSize);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop schema if exists " + schema + " cascade");
    }
    return db;
  }

  /** Drops {@code schema} and migrates it up to {@code version}, that one included. */
  public static MigrationSchema upTo(String schema, String version) throws SQLException {
    HikariDataSource db = emptySchema(schema, 2);
    Flyway.configure().dataSource(db).schemas(schema).target(version).load().migrate();
    return new MigrationSchema(db, schema);
  }

  /** Runs every migration not applied yet. */
  public void migrate() {
    Flyway.configure().dataSource(db).schemas(schema).load().migrate();
  }

  public Connection connection() throws SQLException {
    return db.getConnection();
  }

  /** Runs one statement with these parameters, in order. */
  public static void exec(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        p.setObject(i + 1, args[i]);
      }
      p.executeUpdate();
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
