package dev.gitopshq.bench;

import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Command-line options of the form {@code --name=value} or {@code --name value}; when an option is
 * repeated, its last value wins (the run scripts pass defaults first, then the user's options).
 * Secrets (API tokens) are read from the environment instead, so they never show in {@code ps}.
 */
final class Args {
  /**
   * A benchmark's {@code main}: {@code --help} prints {@code usage}; a bad option exits 2 with the
   * usage, a failed run (an {@link IllegalStateException} or an I/O error) exits 1 with its message.
   */
  static void main(String[] argv, String usage, Consumer<Args> run) {
    if (argv.length == 1 && argv[0].equals("--help")) {
      System.out.println(usage);
      return;
    }
    try {
      run.accept(new Args(argv));
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage() + "\n" + usage);
      System.exit(2);
    } catch (IllegalStateException | UncheckedIOException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(1);
    }
  }

  private final Map<String, String> values = new HashMap<>();
  private final Set<String> used = new HashSet<>();

  Args(String[] argv) {
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (!a.startsWith("--") || a.length() == 2) {
        throw new IllegalArgumentException("unexpected argument '" + a + "' (options are --name=value)");
      }
      int eq = a.indexOf('=');
      if (eq > 0) {
        values.put(a.substring(2, eq), a.substring(eq + 1));
      } else if (i + 1 < argv.length) {
        values.put(a.substring(2), argv[++i]);
      } else {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
    }
  }

  String required(String name) {
    used.add(name);
    String v = values.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("missing option --" + name);
    }
    return v;
  }

  String get(String name, String fallback) {
    used.add(name);
    return values.getOrDefault(name, fallback);
  }

  int intValue(String name, int fallback, int min) {
    String v = get(name, Integer.toString(fallback));
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + v + "'");
    }
    if (n < min) {
      throw new IllegalArgumentException("--" + name + " must be at least " + min + ", got " + n);
    }
    return n;
  }

  /** Refuses options nobody asked for (typos would otherwise be ignored silently). */
  void rejectUnknown() {
    for (String k : values.keySet()) {
      if (!used.contains(k)) {
        throw new IllegalArgumentException("unknown option --" + k);
      }
    }
  }

  /** A required environment variable. */
  static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("environment variable " + name + " is not set");
    }
    return v;
  }
}
