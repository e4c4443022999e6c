package dev.gitopshq.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A plain-text table with a header row, columns padded to their widest cell. A column whose cells
 * all start with a digit or a minus sign (numbers, ratios such as {@code 1.84x}) is right-aligned,
 * any other column left-aligned.
 */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = cells[i] instanceof Double d ? ms(d) : String.valueOf(cells[i]);
    }
    rows.add(r);
    return this;
  }

  /** A row of the usual latency columns: label, n, p50, p90, p99, max, mean. */
  Table stats(String label, Stats s) {
    return row(label, s.n(), s.p50(), s.p90(), s.p99(), s.max(), s.mean());
  }

  /** The header for {@link #stats}. */
  static Table forStats(String firstColumn) {
    return new Table(firstColumn, "n", "p50 ms", "p90 ms", "p99 ms", "max ms", "mean ms");
  }

  /** Milliseconds with a precision that suits their size. */
  static String ms(double v) {
    return String.format(Locale.ROOT, v < 10 ? "%.3f" : v < 1000 ? "%.1f" : "%.0f", v);
  }

  @Override
  public String toString() {
    int cols = rows.get(0).length;
    int[] width = new int[cols];
    boolean[] rightAligned = new boolean[cols];
    Arrays.fill(rightAligned, rows.size() > 1);
    for (int n = 0; n < rows.size(); n++) {
      String[] r = rows.get(n);
      for (int i = 0; i < cols; i++) {
        width[i] = Math.max(width[i], r[i].length());
        if (n > 0 && !r[i].isEmpty() && !r[i].matches("[-0-9].*")) {
          rightAligned[i] = false;
        }
      }
    }
    StringBuilder b = new StringBuilder();
    for (int n = 0; n < rows.size(); n++) {
      String[] r = rows.get(n);
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < cols; i++) {
        String pad = " ".repeat(width[i] - r[i].length());
        line.append(i == 0 ? "" : "  ").append(rightAligned[i] ? pad + r[i] : r[i] + pad);
      }
      b.append(line.toString().stripTrailing()).append('\n');
      if (n == 0) {
        b.append("  ");
        for (int i = 0; i < cols; i++) {
          b.append(i == 0 ? "" : "  ").append("-".repeat(width[i]));
        }
        b.append('\n');
      }
    }
    return b.toString();
  }
}
