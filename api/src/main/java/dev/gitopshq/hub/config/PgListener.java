package dev.gitopshq.hub.config;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * PostgreSQL's LISTEN/NOTIFY for every hub replica: one connection of its own, outside the pool,
 * listening on the channels of the {@link Channel} beans, and handing each notification to its
 * channel. Triggers in the database notify when a change commits (V23, V24), so a change made
 * through any replica, or by hand, reaches every replica at once. When the connection fails, every
 * channel is told it is no longer listening (and must not rely on notifications) until the listener
 * has connected and listens again (retried every {@link #RETRY}).
 */
@Component
public class PgListener implements SmartLifecycle {
  static final Duration RETRY = Duration.ofSeconds(2);

  /** The listening connection's {@code application_name} in {@code pg_stat_activity}. */
  public static final String APPLICATION_NAME = "gitopshq-listener";

  /** How long one wait for notifications lasts before the connection is checked. */
  private static final int POLL_MILLIS = 5_000;

  private static final Logger log = LoggerFactory.getLogger(PgListener.class);

  /** One channel and what to do with its notifications. */
  public interface Channel {
    /** The channel name (a PostgreSQL identifier). */
    String channel();

    /** A notification arrived; {@code payload} as the trigger wrote it. Must not block long. */
    void onNotification(String payload);

    /**
     * Whether notifications arrive now: true once listening, false from the moment the connection
     * failed (notifications in between are lost).
     */
    void onListening(boolean listening);
  }

  private final Map<String, Channel> channels;
  private final DataSourceProperties db;
  private volatile boolean running;
  private volatile Thread thread;
  private volatile Connection connection;
  private volatile boolean listening;

  public PgListener(List<Channel> channels, DataSourceProperties db) {
    this.channels =
        channels.stream().collect(Collectors.toMap(Channel::channel, Function.identity()));
    this.db = db;
  }

  @Override
  public void start() {
    if (channels.isEmpty() || running) {
      return;
    }
    running = true;
    thread = Thread.ofPlatform().name("pg-listener").daemon().start(this::run);
  }

  private void run() {
    while (running) {
      Properties props = new Properties();
      props.setProperty("user", db.determineUsername());
      props.setProperty("password", db.determinePassword());
      props.setProperty("ApplicationName", APPLICATION_NAME);
      try (Connection c = DriverManager.getConnection(db.determineUrl(), props)) {
        connection = c;
        try (Statement s = c.createStatement()) {
          for (String name : channels.keySet()) {
            s.execute("LISTEN " + name);
          }
        }
        listening = true;
        channels.values().forEach(ch -> ch.onListening(true));
        PGConnection pg = c.unwrap(PGConnection.class);
        while (running) {
          PGNotification[] received = pg.getNotifications(POLL_MILLIS);
          if (received != null && received.length > 0) {
            for (PGNotification n : received) {
              deliver(n);
            }
          } else if (!c.isValid(2)) {
            throw new SQLException("the connection is no longer valid");
          }
        }
      } catch (SQLException e) {
        listening = false;
        channels.values().forEach(ch -> ch.onListening(false));
        if (running) {
          log.warn(
              "not listening for changes (PostgreSQL: {}); retrying in {} s",
              e.getSQLState(),
              RETRY.toSeconds());
          sleep();
        }
      } finally {
        connection = null;
      }
    }
  }

  /** Whether notifications arrive now (the LISTEN statements ran on a live connection). */
  public boolean listening() {
    return listening;
  }

  private void deliver(PGNotification n) {
    Channel ch = channels.get(n.getName());
    if (ch == null) {
      return;
    }
    try {
      ch.onNotification(n.getParameter());
    } catch (RuntimeException e) {
      log.warn("channel {}: a notification could not be handled: {}", n.getName(), e.toString());
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
    listening = false;
    channels.values().forEach(ch -> ch.onListening(false));
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
