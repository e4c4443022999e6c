package dev.gitopshq.hub.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.apache.ibatis.exceptions.PersistenceException;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.MyBatisSystemException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/** Which failures are PostgreSQL being away (503) and which stay the hub's or the client's. */
class DatabaseUnavailableTest {

  @Test
  void aRestartingOrUnreachableDatabaseIsUnavailable() {
    // What a PostgreSQL restart sends to open sessions, then what the driver says.
    SQLException adminShutdown =
        new SQLException("terminating connection due to administrator command", "57P01");
    SQLException ioError = new SQLException("An I/O error occurred", "08006", new EOFException());
    SQLException starting = new SQLException("the database system is starting up", "57P03");
    // Hikari's pool timing out, as Spring and MyBatis hand it on.
    SQLTransientConnectionException poolTimeout =
        new SQLTransientConnectionException("HikariPool-1 - Connection is not available");

    assertThat(DatabaseUnavailable.causedBy(adminShutdown)).isTrue();
    assertThat(DatabaseUnavailable.causedBy(new MyBatisSystemException("x", ioError))).isTrue();
    assertThat(DatabaseUnavailable.causedBy(starting)).isTrue();
    assertThat(
            DatabaseUnavailable.causedBy(
                new MyBatisSystemException(
                    "x",
                    new PersistenceException(
                        new CannotGetJdbcConnectionException("no connection", poolTimeout)))))
        .isTrue();
    assertThat(
            DatabaseUnavailable.causedBy(
                new CannotCreateTransactionException("could not open", poolTimeout)))
        .isTrue();
  }

  @Test
  void aRollbackThatFailsOnTheBrokenConnectionIsUnavailable() {
    // What a read-only transaction whose query met the outage throws: Hikari's closed connection
    // (no SQLState) as the cause, the query's I/O error as the application exception.
    TransactionSystemException rollback =
        new TransactionSystemException(
            "JDBC rollback failed", new SQLException("Connection is closed"));
    rollback.initApplicationException(
        new MyBatisSystemException(
            "x", new SQLException("An I/O error occurred", "08006", new EOFException())));
    assertThat(DatabaseUnavailable.causedBy(rollback)).isTrue();

    TransactionSystemException other =
        new TransactionSystemException("commit failed", new SQLException("Connection is closed"));
    other.initApplicationException(new IllegalStateException("bug"));
    assertThat(DatabaseUnavailable.causedBy(other)).isFalse();
  }

  @Test
  void otherDataErrorsAreNot() {
    assertThat(DatabaseUnavailable.causedBy(new DuplicateKeyException("dup"))).isFalse();
    assertThat(
            DatabaseUnavailable.causedBy(
                new DataIntegrityViolationException(
                    "nul", new SQLException("invalid byte sequence", "22021"))))
        .isFalse();
    assertThat(DatabaseUnavailable.causedBy(new SQLException("syntax error", "42601"))).isFalse();
    assertThat(DatabaseUnavailable.causedBy(new IllegalStateException("bug"))).isFalse();
  }

  @Test
  void aCauseChainThatLoopsEnds() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(DatabaseUnavailable.causedBy(a)).isFalse();
  }
}
