package dev.gitopshq.hub.git;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code git} for tests of the hosted Git: no user or system configuration, no credential
 * helper and no prompts, so only the URL and the token in it reach the hub.
 */
public final class GitCli {
  /** What a git run ended with: its exit code and its output (stdout and stderr together). */
  public record Run(int exit, String output) {}

  private final Path home;
  private final String author;

  /**
   * @param home an empty directory used as {@code HOME}
   * @param author the name commits are made with (the e-mail is derived from it)
   */
  public GitCli(Path home, String author) {
    this.home = home;
    this.author = author;
  }

  public Run run(Path dir, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("git", "-c", "credential.helper=", "-c", "http.lowSpeedTime=30"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    String path = env.get("PATH");
    env.clear();
    env.put("PATH", path);
    env.put("HOME", home.toString());
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_ASKPASS", "/bin/false");
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("LC_ALL", "C");
    String email = author.toLowerCase() + "@example.com";
    env.put("GIT_AUTHOR_NAME", author);
    env.put("GIT_AUTHOR_EMAIL", email);
    env.put("GIT_COMMITTER_NAME", author);
    env.put("GIT_COMMITTER_EMAIL", email);
    Process p = pb.start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("git finished").isTrue();
    return new Run(p.exitValue(), new String(out, UTF_8));
  }
}
