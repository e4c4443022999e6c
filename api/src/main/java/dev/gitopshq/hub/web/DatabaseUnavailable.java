package dev.gitopshq.hub.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * PostgreSQL unreachable (restarting, failing over, the pool out of connections for longer than its
 * timeout) is not the hub's bug: the client gets 503 with {@code Retry-After} and the usual error
 * body, not a 500. Controllers' failures reach {@link ApiExceptionHandler}; this filter answers the
 * ones raised before a controller runs, such as a token looked up while authenticating.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1)
public class DatabaseUnavailable extends OncePerRequestFilter {
  private static final Logger log = LoggerFactory.getLogger(DatabaseUnavailable.class);

  /** Seconds a client is asked to wait before retrying. */
  public static final int RETRY_AFTER_SECONDS = 5;

  static final ApiError ERROR =
      new ApiError(
          503,
          "unavailable",
          "the hub cannot reach its database right now; retry in a few seconds",
          null);

  private static final int MAX_CAUSES = 32;

  private final ObjectMapper json;

  public DatabaseUnavailable(ObjectMapper json) {
    this.json = json;
  }

  /** Whether {@code e} or one of its causes says the database cannot be reached. */
  public static boolean causedBy(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
      // A rollback on the broken connection fails too ("Connection is closed", no SQLState);
      // the failure that made it roll back is kept aside as the application exception.
      if (t instanceof TransactionSystemException tse
          && tse.getApplicationException() != null
          && tse.getApplicationException() != e
          && causedBy(tse.getApplicationException())) {
        return true;
      }
      if (t instanceof DataAccessResourceFailureException
          || t instanceof TransientDataAccessException
          || t instanceof RecoverableDataAccessException
          || t instanceof CannotCreateTransactionException
          || t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        // 08: connection exceptions; 57P01-57P03: the server is shutting down or starting.
        if (state.startsWith("08") || state.startsWith("57P")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Logs the outage in one line (no stack trace, no SQL text) and builds the 503. */
  static ResponseEntity<ApiError> response(Throwable e) {
    log.warn("database unavailable, answering 503: {}", rootClass(e));
    return ResponseEntity.status(503)
        .header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS))
        .contentType(MediaType.APPLICATION_JSON)
        .body(ERROR);
  }

  private static String rootClass(Throwable e) {
    Throwable root = e;
    for (int i = 0; i < MAX_CAUSES && root.getCause() != null; i++) {
      root = root.getCause();
    }
    return e.getClass().getSimpleName() + " <- " + root.getClass().getName();
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try {
      chain.doFilter(request, response);
    } catch (RuntimeException | ServletException e) {
      if (!causedBy(e) || response.isCommitted()) {
        throw e;
      }
      log.warn("database unavailable, answering 503: {}", rootClass(e));
      response.resetBuffer();
      response.setStatus(503);
      response.setHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      json.writeValue(response.getOutputStream(), ERROR);
    }
  }
}
