package dev.gitopshq.bench;

import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.render.ChartSource;
import dev.gitopshq.activities.render.DeliveryPlanner;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Benchmark 9: the hub's resident memory over many Helm renders. Two JVMs of their own (-Xmx256m)
 * render the same units one after the other, {@code --renders} times, and report their RSS after a
 * GC every {@code --every} renders: one as the hub runs (helm-java's leftover goroutines freed,
 * see {@code HelmProcess.releaseGoroutines}), one with {@code
 * -Dgitopshq.helm.releaseGoroutines=false} (the baseline). The slope is RSS per render by least
 * squares over every sample after the first.
 */
public final class RenderSoakBench {
  private static final String USAGE =
      "usage: RenderSoakBench --chart DIR --out FILE [--renders 50000] [--every 5000]";

  private RenderSoakBench() {}

  public static void main(String[] argv) {
    if (argv.length > 0 && argv[0].equals("--child")) {
      child(Path.of(argv[1]), Integer.parseInt(argv[2]), Integer.parseInt(argv[3]));
      return;
    }
    Args.main(argv, USAGE, RenderSoakBench::run);
  }

  private static void run(Args args) {
    Path chart = Path.of(args.required("chart"));
    Path out = Path.of(args.required("out"));
    int renders = args.intValue("renders", 50_000, 1_000);
    int every = args.intValue("every", 5_000, 100);
    args.rejectUnknown();
    if (renders / every < 3) {
      throw new IllegalArgumentException(
          "--renders must be at least 3 times --every (the slope needs two samples after the first)");
    }
    Report report = new Report("render-soak");
    Map<String, Object> runs = new LinkedHashMap<>();
    List<String[]> rows = new ArrayList<>();
    for (boolean release : new boolean[] {true, false}) {
      String name = release ? "goroutines freed (as the hub runs)" : "not freed (baseline)";
      System.out.printf(Locale.ROOT, "%s: %,d renders...%n", name, renders);
      List<long[]> samples = childRun(chart, renders, every, release);
      double slope = slopeKbPerRender(samples.subList(1, samples.size()));
      long first = samples.get(0)[1];
      long last = samples.get(samples.size() - 1)[1];
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("releaseGoroutines", release);
      r.put("samples", samples.stream().map(s -> List.of(s[0], s[1])).toList());
      r.put("kbPerRender", Stats.round(slope));
      runs.put(release ? "freed" : "baseline", r);
      rows.add(
          new String[] {
            name,
            String.format(Locale.ROOT, "%,d", first / 1024),
            String.format(Locale.ROOT, "%,d", last / 1024),
            String.format(Locale.ROOT, "%.2f", slope)
          });
    }
    report.put("renders", renders).put("every", every).put("runs", runs).write(out);
    System.out.println();
    System.out.printf(
        Locale.ROOT, "%-38s %14s %14s %14s%n", "run", "RSS first MiB", "RSS last MiB", "KB per render");
    for (String[] row : rows) {
      System.out.printf(Locale.ROOT, "%-38s %14s %14s %14s%n", (Object[]) row);
    }
    System.out.println("\nReport: " + out);
  }

  /** The child JVM's samples: {renders, RSS in KiB}. */
  private static List<long[]> childRun(Path chart, int renders, int every, boolean release) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx256m");
    cmd.add("--enable-native-access=ALL-UNNAMED");
    if (Runtime.version().feature() >= 24) {
      cmd.add("--sun-misc-unsafe-memory-access=allow");
    }
    cmd.add("-Dgitopshq.helm.releaseGoroutines=" + release);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(RenderSoakBench.class.getName());
    cmd.addAll(List.of("--child", chart.toString(), String.valueOf(renders), String.valueOf(every)));
    List<long[]> samples = new ArrayList<>();
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.startsWith("sample ")) {
            String[] f = line.split(" ");
            samples.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            System.out.printf(
                Locale.ROOT, "  %,7d renders: RSS %,d MiB%n", Long.parseLong(f[1]), Long.parseLong(f[2]) / 1024);
          }
        }
      }
      int exit = p.waitFor();
      if (exit != 0) {
        throw new IllegalStateException("the render JVM failed (exit " + exit + ")");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
    return samples;
  }

  private static double slopeKbPerRender(List<long[]> samples) {
    double n = samples.size();
    double mx = samples.stream().mapToDouble(s -> s[0]).sum() / n;
    double my = samples.stream().mapToDouble(s -> s[1]).sum() / n;
    double num = 0;
    double den = 0;
    for (long[] s : samples) {
      num += (s[0] - mx) * (s[1] - my);
      den += (s[0] - mx) * (s[0] - mx);
    }
    return num / den;
  }

  private static void child(Path chartDir, int renders, int every) {
    DeliveryScenario.Chart chart = DeliveryScenario.pack(chartDir);
    ProjectSnapshot snapshot = DeliveryScenario.snapshot(1, 2, 5, chart);
    List<Unit> units = DeliveryPlanner.plan(snapshot);
    ChartSource charts =
        d -> {
          if (!d.equals(chart.digest())) {
            throw new IllegalStateException("no chart with digest " + d);
          }
          return chart.archive();
        };
    try {
      Renderer renderer = new Renderer(Files.createTempDirectory("gitopshq-render-soak"));
      for (int i = 1; i <= renders; i++) {
        renderer.render(units.get(i % units.size()), charts);
        if (i % every == 0) {
          System.gc();
          System.out.println("sample " + i + " " + FleetBench.rssKib(ProcessHandle.current().pid()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
