package dev.gitopshq.workflows;

import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Records workflow histories for {@link ReplayTest}. Off by default; run a test class with {@code
 * -Dgitopshq.recordHistories=true} to (re)write {@code src/test/resources/histories/}. A history is
 * recorded only when a workflow's behaviour changes on purpose; the replay test then proves every
 * change since is compatible with executions already running.
 */
public final class Histories {
  public static final Path DIR = Path.of("src/test/resources/histories");

  private Histories() {}

  /** Saves the workflow's history as {@code name.json}, if recording is on. */
  public static void save(WorkflowClient client, String workflowId, String name) {
    if (!Boolean.getBoolean("gitopshq.recordHistories")) {
      return;
    }
    try {
      Files.createDirectories(DIR);
      Files.writeString(DIR.resolve(name + ".json"), client.fetchHistory(workflowId).toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
