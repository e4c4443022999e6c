package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitopshq audit replay}: the recorded histories of the workflows module replay cleanly in
 * the CLI's JVM, and a tampered one is reported as diverged at the event that no longer matches.
 */
class ReplayCommandTest {
  static final Path HISTORIES = Path.of("..", "workflows", "src", "test", "resources", "histories");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void everyRecordedHistoryIsDeterministic() throws Exception {
    long files;
    try (var s = Files.list(HISTORIES)) {
      files = s.filter(p -> p.toString().endsWith(".json")).count();
    }
    Run.Result r = new Run().run("audit", "replay", HISTORIES.toString());
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out().lines().filter(l -> l.endsWith(")") && l.contains(": deterministic (")))
        .hasSize((int) files);
    assertThat(r.out()).contains(files + " histories: " + files + " deterministic, 0 not.");
  }

  @Test
  void aTamperedHistoryDivergesAtTheChangedEvent() throws Exception {
    JsonNode h = JSON.readTree(HISTORIES.resolve("command-v1-auto-approve.json").toFile());
    long changed = 0;
    for (JsonNode e : h.path("events")) {
      JsonNode a = e.path("activityTaskScheduledEventAttributes");
      if (a.isObject()) {
        ((ObjectNode) a.path("activityType")).put("name", "SomethingElse");
        changed = e.path("eventId").asLong();
        break;
      }
    }
    assertThat(changed).isPositive();
    Path tampered = tmp.resolve("tampered.json");
    JSON.writeValue(tampered.toFile(), h);
    Path good = HISTORIES.resolve("command-rejected.json");

    Run.Result r = new Run().run("audit", "replay", good.toString(), tampered.toString());

    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(r.out()).contains(good + ": deterministic (CommandWorkflow)");
    assertThat(r.out())
        .contains(
            tampered
                + ": diverged at event "
                + changed
                + " (CommandWorkflow): Command COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK doesn't match"
                + " event EVENT_TYPE_ACTIVITY_TASK_SCHEDULED with EventId="
                + changed
                + " on check activityType with an expected value 'name: \"Execute\" ' and an"
                + " actual value 'name: \"SomethingElse\" '.\n");

    Run.Result json = new Run().run("audit", "replay", "-o", "json", tampered.toString());
    JsonNode out = JSON.readTree(json.out());
    assertThat(out.get(0).path("outcome").asText()).isEqualTo("diverged");
    assertThat(out.get(0).path("eventId").asLong()).isEqualTo(changed);
  }

  @Test
  void aFileThatIsNoHistoryIsReportedAndFails() throws Exception {
    Path junk = tmp.resolve("junk.json");
    Files.writeString(junk, "{\"not\": \"a history\"");
    Run.Result r = new Run().run("audit", "replay", junk.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.ERROR);
    assertThat(r.out()).contains("junk.json: unreadable: not a workflow history");
  }
}
