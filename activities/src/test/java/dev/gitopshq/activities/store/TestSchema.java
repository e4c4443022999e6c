package dev.gitopshq.activities.store;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.flywaydb.core.Flyway;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A fresh schema of the real test database (GITOPSHQ_TEST_DB_URL) for one activities IT class,
 * migrated by Flyway and mapped by MyBatis the way the hub maps it: sessions join Spring-managed
 * transactions, and the store's type handlers are registered.
 */
public final class TestSchema implements AutoCloseable {
  private final HikariDataSource db;
  private final SqlSessionTemplate sessions;
  private final TransactionTemplate tx;

  private TestSchema(HikariDataSource db, SqlSessionTemplate sessions) {
    this.db = db;
    this.sessions = sessions;
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(db));
  }

  /** Drops and migrates {@code schema}, with these mappers. */
  public static TestSchema create(String schema, Class<?>... mappers) throws SQLException {
    HikariDataSource db = MigrationSchema.emptySchema(schema, 4);
    Flyway.configure().dataSource(db).schemas(schema).load().migrate();
    Configuration cfg = new Configuration();
    cfg.setMapUnderscoreToCamelCase(true);
    cfg.setArgNameBasedConstructorAutoMapping(true);
    cfg.getTypeHandlerRegistry().register(UuidTypeHandler.class);
    cfg.getTypeHandlerRegistry().register(InstantTypeHandler.class);
    cfg.getTypeHandlerRegistry().register(JsonMapTypeHandler.class);
    cfg.getTypeHandlerRegistry().register(StringListTypeHandler.class);
    for (Class<?> m : mappers) {
      cfg.addMapper(m);
    }
    cfg.setEnvironment(
        new Environment.Builder("test")
            .transactionFactory(new SpringManagedTransactionFactory())
            .dataSource(db)
            .build());
    return new TestSchema(db, new SqlSessionTemplate(new SqlSessionFactoryBuilder().build(cfg)));
  }

  public <T> T mapper(Class<T> type) {
    return sessions.getMapper(type);
  }

  /** MyBatis' configuration: the SQL each mapper method sends (for EXPLAIN in index tests). */
  public Configuration configuration() {
    return sessions.getConfiguration();
  }

  public TransactionTemplate tx() {
    return tx;
  }

  public HikariDataSource dataSource() {
    return db;
  }

  /** Runs one statement with positional arguments. */
  public void exec(String sql, Object... args) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, args);
      ps.executeUpdate();
    }
  }

  /** A new organization row; its id. */
  public java.util.UUID newOrg() throws SQLException {
    java.util.UUID id = java.util.UUID.randomUUID();
    exec(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'O', now())",
        id,
        "o-" + id.toString().substring(0, 8));
    return id;
  }

  /** A new cluster row named {@code prod} in an organization; its id. */
  public java.util.UUID newCluster(java.util.UUID orgId) throws SQLException {
    java.util.UUID id = java.util.UUID.randomUUID();
    exec(
        "insert into clusters (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, 'prod', 'test', now(), now())",
        id,
        orgId);
    return id;
  }

  /** The first column of the first row, as a long. */
  public long count(String sql, Object... args) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, args);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void bind(PreparedStatement ps, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      ps.setObject(i + 1, args[i]);
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
