package dev.gitopshq.activities.render;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The helm command-line tool (tools/helm: Helm v3.21.0, the version the render worker is built
 * from), for tests that compare the hub's renders with what {@code helm template} prints. The
 * binary is {@code $GITOPSHQ_HELM_BIN} when set (as {@code make test} does), else {@code
 * tools/bin-path.sh helm} of this checkout. It runs with an empty environment but for a HOME of its
 * own, so no kubeconfig of the machine is read.
 */
public final class HelmCli {
  private HelmCli() {}

  /** {@code helm template <release> <chart> --namespace <namespace> [--values <file>]}. */
  public static String template(Path chart, String release, String namespace, Path values) {
    List<String> args = new ArrayList<>(List.of("template", release, chart.toString()));
    args.addAll(List.of("--namespace", namespace));
    if (values != null) {
      args.addAll(List.of("--values", values.toString()));
    }
    return run(args);
  }

  /** Runs helm with these arguments and returns its stdout; fails with its stderr. */
  public static String run(List<String> args) {
    Path home = null;
    try {
      home = Files.createTempDirectory("helm-home-");
      List<String> command = new ArrayList<>();
      command.add(binary().toString());
      command.addAll(args);
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().clear();
      pb.environment().put("HOME", home.toString());
      Path err = home.resolve("stderr");
      Process p = pb.redirectError(err.toFile()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("helm " + args + " did not finish in 60 s");
      }
      if (p.exitValue() != 0) {
        String message = Files.readString(err).strip();
        throw new IllegalStateException(
            message.startsWith("Error: ") ? message.substring("Error: ".length()) : message);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running helm", e);
    } finally {
      Workdirs.deleteQuietly(home);
    }
  }

  /** The helm binary; fails with what to do when there is none. */
  public static Path binary() {
    String env = System.getenv("GITOPSHQ_HELM_BIN");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path script = d.resolve("tools/bin-path.sh");
      if (Files.isExecutable(script) && Files.isDirectory(d.resolve("tools/helm"))) {
        try {
          Process p =
              new ProcessBuilder(script.toString(), "helm").redirectErrorStream(true).start();
          String out =
              new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
          if (p.waitFor() == 0) {
            return Path.of(out);
          }
          throw new IllegalStateException(
              "no helm binary for the tests: set GITOPSHQ_HELM_BIN or run 'tools/build-tools.sh"
                  + " helm' ("
                  + out
                  + ")");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    throw new IllegalStateException("no helm binary for the tests: set GITOPSHQ_HELM_BIN");
  }
}
