package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The machine-readable result of one benchmark run: what ran, where, with which parameters, the
 * summaries and the raw samples (milliseconds), written as one JSON document.
 */
final class Report {
  private final Map<String, Object> root = new LinkedHashMap<>();

  Report(String benchmark) {
    root.put("benchmark", benchmark);
    root.put("startedAt", OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).toString());
    root.put("environment", environment());
  }

  /** Adds (or replaces) a top-level section. */
  Report put(String key, Object value) {
    root.put(key, value);
    return this;
  }

  void write(Path file) {
    try {
      Path dir = file.toAbsolutePath().getParent();
      if (dir != null) {
        Files.createDirectories(dir);
      }
      JsonHttp.JSON.writer().with(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Samples in nanoseconds as milliseconds with microsecond precision. */
  static double[] millis(long[] nanos) {
    double[] ms = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      ms[i] = Stats.round(nanos[i] / 1e6);
    }
    return ms;
  }

  /**
   * Where the numbers come from: cores, CPU, memory, load when the measurement started, how busy
   * the machine was before the stack started ({@code BENCH_CPU_BUSY_BEFORE}), JVM, the checkout's
   * revision ({@code BENCH_GIT_REVISION}) and when the jars under test were built ({@code
   * BENCH_JARS_BUILT}); the run scripts set these variables.
   */
  private static Map<String, Object> environment() {
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("cores", Runtime.getRuntime().availableProcessors());
    env.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
    env.put("memTotal", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
    env.put("loadAverage", read(Path.of("/proc/loadavg")));
    env.put("cpuBusyPercentBeforeStart", System.getenv().getOrDefault("BENCH_CPU_BUSY_BEFORE", "unknown"));
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    env.put("gitRevision", System.getenv().getOrDefault("BENCH_GIT_REVISION", "unknown"));
    env.put("jarsBuilt", System.getenv().getOrDefault("BENCH_JARS_BUILT", "unknown"));
    return env;
  }

  private static String firstValue(Path file, String key) {
    String text = read(file);
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
        return line.substring(colon + 1).trim();
      }
    }
    return "unknown";
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
