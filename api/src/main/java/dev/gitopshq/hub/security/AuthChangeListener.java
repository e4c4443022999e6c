package dev.gitopshq.hub.security;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Listens on PostgreSQL's {@code gitopshq_auth} channel (V23's triggers) on a connection of its
 * own, outside the pool, and empties the {@link AuthCache} on every notification: a token revoked
 * through any hub, or by hand in the database, stops working on every hub at once. The cache serves
 * nothing until the listener listens, and again from the moment its connection fails until it
 * listens again (retried every {@link #RETRY}).
 */
@Component
public class AuthChangeListener implements SmartLifecycle {
  static final String CHANNEL = "gitopshq_auth";
  static final Duration RETRY = Duration.ofSeconds(2);

  /** How long one wait for notifications lasts before the connection is checked. */
  private static final int POLL_MILLIS = 5_000;

  private static final Logger log = LoggerFactory.getLogger(AuthChangeListener.class);

  private final AuthCache cache;
  private final DataSourceProperties db;
  private volatile boolean running;
  private volatile Thread thread;
  private volatile Connection connection;

  public AuthChangeListener(AuthCache cache, DataSourceProperties db) {
    this.cache = cache;
    this.db = db;
  }

  @Override
  public void start() {
    if (!cache.enabled() || running) {
      return;
    }
    running = true;
    thread = Thread.ofPlatform().name("auth-change-listener").daemon().start(this::run);
  }

  private void run() {
    while (running) {
      try (Connection c =
          DriverManager.getConnection(
              db.determineUrl(), db.determineUsername(), db.determinePassword())) {
        connection = c;
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + CHANNEL);
        }
        cache.listening(true);
        PGConnection pg = c.unwrap(PGConnection.class);
        while (running) {
          PGNotification[] changes = pg.getNotifications(POLL_MILLIS);
          if (changes != null && changes.length > 0) {
            cache.invalidateAll();
          } else if (!c.isValid(2)) {
            throw new SQLException("the connection is no longer valid");
          }
        }
      } catch (SQLException e) {
        cache.listening(false);
        if (running) {
          log.warn(
              "Not told of token changes (PostgreSQL: {}); authentications are not cached until"
                  + " listening again",
              e.getSQLState());
          sleep();
        }
      } finally {
        cache.listening(false);
        connection = null;
      }
    }
  }

  private void sleep() {
    try {
      Thread.sleep(RETRY);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void stop() {
    running = false;
    cache.listening(false);
    Connection c = connection;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing a connection that failed anyway
      }
    }
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
