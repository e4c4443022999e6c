package dev.gitopshq.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Summary of a latency sample: percentiles, extremes and mean, all in milliseconds.
 *
 * <p>Percentiles use the nearest-rank method: p-th percentile = the smallest sample such that at
 * least p % of the samples are less than or equal to it. With 200 samples p99 is therefore the
 * second-largest value, with 2000 samples the 20th-largest.
 *
 * @param n number of samples
 * @param min smallest sample
 * @param p50 median
 * @param p90 90th percentile
 * @param p99 99th percentile
 * @param max largest sample
 * @param mean arithmetic mean
 */
public record Stats(int n, double min, double p50, double p90, double p99, double max, double mean) {

  /** Summarizes samples given in nanoseconds. */
  public static Stats ofNanos(long[] nanos) {
    double[] ms = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      ms[i] = nanos[i] / 1e6;
    }
    return ofMillis(ms);
  }

  /** Summarizes samples given in milliseconds. */
  public static Stats ofMillis(double[] millis) {
    if (millis.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    double[] s = millis.clone();
    Arrays.sort(s);
    double sum = 0;
    for (double v : s) {
      sum += v;
    }
    return new Stats(
        s.length, s[0], rank(s, 50), rank(s, 90), rank(s, 99), s[s.length - 1], sum / s.length);
  }

  private static double rank(double[] sorted, double percentile) {
    int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** The summary as an ordered map (milliseconds rounded to microseconds) for the JSON report. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("n", n);
    m.put("minMs", round(min));
    m.put("p50Ms", round(p50));
    m.put("p90Ms", round(p90));
    m.put("p99Ms", round(p99));
    m.put("maxMs", round(max));
    m.put("meanMs", round(mean));
    return m;
  }

  /** Milliseconds rounded to three decimals (microseconds). */
  public static double round(double ms) {
    return Math.round(ms * 1000.0) / 1000.0;
  }
}
