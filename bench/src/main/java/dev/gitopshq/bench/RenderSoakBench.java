package dev.gitopshq.bench;

import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.render.ChartSource;
import dev.gitopshq.activities.render.DeliveryPlanner;
import dev.gitopshq.activities.render.RenderWorkers;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Benchmark 9: the hub's resident memory over many Helm renders. A JVM of its own (-Xmx256m)
 * renders the same units one after the other, {@code --renders} times, on the renderer's pool of
 * render worker processes as the hub does, and reports its own RSS after a GC every {@code
 * --every} renders, with the RSS of the worker processes alive at that moment beside it. The
 * slope is the JVM's RSS per render by least squares over every sample after the first; the JVM
 * runs no Helm code, so it should be flat (Helm's memory is the workers', which are replaced
 * after their renders, GITOPSHQ_RENDER_WORKER_RENDERS).
 */
public final class RenderSoakBench {
  private static final String USAGE =
      "usage: RenderSoakBench --chart DIR --out FILE [--renders 100000] [--every 10000]";

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
    int renders = args.intValue("renders", 100_000, 1_000);
    int every = args.intValue("every", 10_000, 100);
    args.rejectUnknown();
    if (renders / every < 3) {
      throw new IllegalArgumentException(
          "--renders must be at least 3 times --every (the slope needs two samples after the first)");
    }
    Report report = new Report("render-soak");
    System.out.printf(Locale.ROOT, "hub JVM rendering on render workers: %,d renders...%n", renders);
    long start = System.nanoTime();
    List<long[]> samples = childRun(chart, renders, every);
    double seconds = (System.nanoTime() - start) / 1e9;
    double slope = slopeKbPerRender(samples.subList(1, samples.size()));
    long first = samples.get(0)[1];
    long last = samples.get(samples.size() - 1)[1];
    long min = samples.stream().mapToLong(x -> x[1]).min().orElseThrow();
    long max = samples.stream().mapToLong(x -> x[1]).max().orElseThrow();
    report
        .put("renders", renders)
        .put("every", every)
        .put("seconds", Stats.round(seconds))
        .put("samples", samples.stream().map(x -> List.of(x[0], x[1], x[2])).toList())
        .put("jvmKbPerRender", Stats.round(slope))
        .write(out);
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "hub JVM RSS: %,d MiB after %,d renders, %,d MiB after %,d (min %,d, max %,d MiB);"
            + " %.3f KB per render by least squares; %.0f renders/s%n",
        first / 1024,
        samples.get(0)[0],
        last / 1024,
        samples.get(samples.size() - 1)[0],
        min / 1024,
        max / 1024,
        slope,
        renders / seconds);
    System.out.println("\nReport: " + out);
  }

  /** The child JVM's samples: {renders, its RSS in KiB, the workers' RSS in KiB}. */
  private static List<long[]> childRun(Path chart, int renders, int every) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx256m");
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
            samples.add(
                new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
            System.out.printf(
                Locale.ROOT,
                "  %,7d renders: hub JVM RSS %,d MiB (render workers half way there: %s MiB in %s)%n",
                Long.parseLong(f[1]),
                Long.parseLong(f[2]) / 1024,
                Long.parseLong(f[3]) / 1024,
                f[4] + " process(es)");
          } else {
            System.out.println("  " + line);
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
    Renderer renderer = new Renderer();
    // The workers are read half way between samples: at a multiple of their renders
    // (GITOPSHQ_RENDER_WORKER_RENDERS, 1,000) a worker has just been retired and none is alive.
    List<Long> workers = List.of();
    long workersKib = 0;
    for (int i = 1; i <= renders; i++) {
      renderer.render(units.get(i % units.size()), charts);
      if (i % every == every / 2) {
        workers = RenderWorkers.shared().pids();
        workersKib = workers.stream().mapToLong(RenderSoakBench::rssKib).filter(k -> k > 0).sum();
      }
      if (i % every == 0) {
        System.gc();
        System.out.println(
            "sample "
                + i
                + " "
                + rssKib(ProcessHandle.current().pid())
                + " "
                + workersKib
                + " "
                + workers.size());
      }
    }
  }

  /** A process's resident memory in KiB (0 when it is gone). */
  private static long rssKib(long pid) {
    try {
      return FleetBench.rssKib(pid);
    } catch (IOException e) {
      return 0;
    }
  }
}
