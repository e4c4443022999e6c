package dev.gitopshq.activities.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that has rendered a chart still stops on SIGTERM and runs its shutdown hooks (Helm's Go
 * library takes the signal for itself otherwise): what Kubernetes and {@code make run} rely on to
 * stop the hub gracefully.
 */
class HelmSignalsTest {
  /** The child JVM: renders the webapp chart, announces itself, waits to be stopped. */
  public static void main(String[] args) throws Exception {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> System.out.println("shutdown hooks ran")));
    byte[] chart = TarGz.webapp().build();
    String digest = ChartArchive.inspect(chart).digest();
    Unit unit =
        new Unit(
            "rendered/production/eu-1/acme/web",
            Unit.HELM,
            "production",
            "eu-1",
            "acme",
            "web",
            "acme-production",
            "webapp",
            "1.2.0",
            digest,
            java.util.Map.of(),
            java.util.Map.of(),
            List.of(),
            "",
            java.util.Map.of());
    new Renderer(Path.of(args[0])).render(unit, d -> chart);
    System.out.println("rendered");
    System.out.flush();
    Thread.sleep(60_000);
    System.out.println("still running after a minute");
  }

  @Test
  void aJvmThatRenderedAChartStillStopsOnSigterm(@TempDir Path dir) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(HelmSignalsTest.class.getName());
    cmd.add(dir.toString());
    Path out = dir.resolve("out.txt");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!read(out).contains("rendered") && p.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(read(out)).as("the child rendered").contains("rendered");

      p.destroy(); // SIGTERM
      assertThat(p.waitFor(15, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
      assertThat(p.exitValue()).isEqualTo(143);
      assertThat(read(out)).contains("shutdown hooks ran");
    } finally {
      p.destroyForcibly();
    }
  }

  private static String read(Path f) throws IOException {
    return Files.exists(f) ? Files.readString(f) : "";
  }
}
