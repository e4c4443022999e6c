package dev.gitopshq.hub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.PolicyText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OPA token of {@code make run} and the benchmarks' stacks (tools/lib/common.sh, procs.sh) is
 * in no process log, and one that leaked anyway opens nothing after the next start (issue 26, item
 * 5: the token was read from hub.log, where it stayed valid across restarts).
 */
class DevStackSecretsTest {
  @TempDir Path work;

  /** Runs the script with tools/lib/common.sh and procs.sh sourced, as run.sh does. */
  private String bash(String script) throws Exception {
    Path repo = OpaTestServer.repoRoot();
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash",
                "-c",
                "set -euo pipefail\n"
                    + ". \"$REPO/tools/lib/common.sh\"\n"
                    + "LOG_DIR=\"$WORK/logs\" HOST=127.0.0.1\n"
                    + "mkdir -p \"$LOG_DIR\"\n"
                    + ". \"$REPO/tools/lib/procs.sh\"\n"
                    + script)
            .redirectErrorStream(true);
    pb.environment().put("REPO", repo.toString());
    pb.environment().put("WORK", work.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void theOpaTokenIsNewOnEveryStartAndMaskedInTheHubsLog() throws Exception {
    String out =
        bash(
            """
            opa_lockdown "$WORK/data"; first=$OPA_TOKEN
            opa_lockdown "$WORK/data"
            printf '%s\\n%s\\n' "$first" "$OPA_TOKEN" >"$WORK/tokens"
            # The hub's command line as launch_hub (tools/dev/run.sh) builds it.
            start_proc hub env GITOPSHQ_DB_PASSWORD=gitopshq OPA_URL=http://127.0.0.1:8181 \\
              GITOPSHQ_OPA_TOKEN="${OPA_TOKEN}" sh -c 'echo hub started'
            wait "${PROC_PID[hub]}"
            """);
    List<String> tokens = Files.readAllLines(work.resolve("tokens"));
    String first = tokens.get(0);
    String current = tokens.get(1);

    assertThat(first).matches("[0-9a-f]{64}");
    assertThat(current).matches("[0-9a-f]{64}").isNotEqualTo(first);
    Path file = work.resolve("data/opa-token");
    assertThat(Files.readString(file)).isEqualTo(current);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    // OPA admits only the current token: the data its authorization policy reads.
    assertThat(Files.readString(work.resolve("data/opa-token-sha256.json")))
        .contains(PolicyText.sha256(current))
        .doesNotContain(PolicyText.sha256(first));

    String hubLog = Files.readString(work.resolve("logs/hub.log"));
    assertThat(hubLog)
        .contains("GITOPSHQ_OPA_TOKEN=***")
        .contains("GITOPSHQ_DB_PASSWORD=***")
        .contains("hub started")
        .doesNotContain(current);
    assertThat(out).doesNotContain(current).doesNotContain(first);
  }
}
