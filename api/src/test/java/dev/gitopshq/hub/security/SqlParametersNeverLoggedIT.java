package dev.gitopshq.hub.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * With every logger of the hub at TRACE (as an operator debugging would set {@code
 * LOGGING_LEVEL_DEV_GITOPSHQ=TRACE}), MyBatis must not log the statements' bound parameters or the
 * rows it reads: they carry e-mail addresses, token hashes and sealed secrets. MyBatis would log
 * them under each mapper's statement id ({@code dev.gitopshq....Mapper.insert}: "==> Parameters:
 * ...", "<== Row: ..."), so the hub runs MyBatis without its statement log (application.yml).
 */
class SqlParametersNeverLoggedIT {

  @Test
  void mappersAtTraceLogNeitherParametersNorRows() {
    try (HubTestSupport hub =
        new HubTestSupport()
            .property("logging.level.dev.gitopshq", "TRACE")
            .property("logging.level.org.apache.ibatis", "TRACE")
            .property("logging.level.org.mybatis", "TRACE")) {
      hub.start();
      LoggerContext logs = (LoggerContext) LoggerFactory.getILoggerFactory();
      Logger root = logs.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
      ListAppender<ILoggingEvent> captured = new ListAppender<>();
      captured.setContext(logs);
      captured.start();
      root.addAppender(captured);
      try {
        // The levels really are TRACE: whatever is not logged below is not logged by choice.
        assertThat(logs.getLogger("dev.gitopshq.activities.org.OrgMapper").isTraceEnabled())
            .isTrue();
        String slug = "sqllog-" + UUID.randomUUID().toString().substring(0, 8);
        String email = "owner@" + slug + ".example.com";

        String ownerToken = hub.createOrg(slug).path("ownerToken").asText();
        assertThat(ownerToken).isNotEmpty();
        // The new owner's token is looked up by its hash (a bound parameter), its row read.
        assertThat(hub.get("/api/v2/members", ownerToken).status()).isEqualTo(200);

        List<String> lines =
            captured.list.stream()
                .map(e -> e.getLoggerName() + " " + e.getFormattedMessage())
                .toList();
        assertThat(lines).noneMatch(l -> l.contains(email));
        assertThat(lines).noneMatch(l -> l.contains(slug));
        assertThat(lines).noneMatch(l -> l.contains(Tokens.sha256Hex(ownerToken)));
        assertThat(lines).noneMatch(l -> l.contains("==> Parameters:"));
        assertThat(lines).noneMatch(l -> l.contains("<==        Row:"));
      } finally {
        root.detachAppender(captured);
      }
    }
  }
}
