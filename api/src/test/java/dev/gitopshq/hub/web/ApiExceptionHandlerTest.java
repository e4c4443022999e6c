package dev.gitopshq.hub.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import org.apache.catalina.connector.ClientAbortException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;

/** What the hub answers, and logs, for errors no other handler takes. */
class ApiExceptionHandlerTest {
  private final ApiExceptionHandler handler = new ApiExceptionHandler();
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ApiExceptionHandler.class);

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
  }

  /**
   * A reader that closes a followed log (or a download) mid-stream is normal: the hub used to log
   * an ERROR with a stack trace and then fail again writing a 500 onto the closed connection.
   */
  @Test
  void aClientThatWentAwayGetsNothingWrittenAndNoErrorLogged() {
    ResponseEntity<ApiError> async =
        handler.unexpected(
            new AsyncRequestNotUsableException(
                "ServletOutputStream failed to flush: java.io.IOException: Broken pipe"));
    ResponseEntity<ApiError> blocking =
        handler.unexpected(
            new IllegalStateException(
                "writing", new ClientAbortException(new IOException("Broken pipe"))));

    assertThat(async).isNull();
    assertThat(blocking).isNull();
    assertThat(logged.list).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
  }

  @Test
  void anythingElseIsAnInternalErrorAndLogged() {
    ResponseEntity<ApiError> answer = handler.unexpected(new IllegalStateException("bug"));

    assertThat(answer.getStatusCode().value()).isEqualTo(500);
    assertThat(answer.getBody().error()).isEqualTo("internal");
    assertThat(logged.list).anyMatch(e -> e.getLevel() == Level.ERROR);
  }
}
