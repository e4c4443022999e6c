package dev.gitopshq.testkube;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a seeded {@link TestKube} as its own process for {@code make run}.
 *
 * <pre>
 * java -jar gitopshq-testkube-0.1.0-SNAPSHOT-all.jar --kubeconfig &lt;path&gt; [--port &lt;n&gt;]
 * </pre>
 *
 * <p>It starts the API on 127.0.0.1 (port 0, the default, means any free port), creates the demo
 * objects, writes the kubeconfig, prints exactly one line to stdout, {@code testkube ready <url>
 * kubeconfig=<path>}, and serves until SIGTERM or SIGINT. Scripts wait for that line; everything
 * else goes to stderr. Usage errors exit with 2, a port that cannot be bound with 1.
 */
public final class DevKubeServer {

  private DevKubeServer() {}

  /** Entry point; see the class documentation for the arguments. */
  public static void main(String[] args) {
    Arguments arguments;
    try {
      arguments = Arguments.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("testkube: " + e.getMessage());
      System.err.println(Arguments.USAGE);
      System.exit(2);
      return;
    }
    if (arguments == null) {
      System.out.println(Arguments.USAGE);
      return;
    }

    TestKube kube;
    try {
      kube = TestKube.start(arguments.port());
    } catch (IllegalStateException e) {
      // The root cause says why, e.g. "Address already in use"; the wrappers only say "failed".
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      System.err.println("testkube: " + e.getMessage() + ": " + cause.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.err.println("testkube: shutting down");
                  kube.close();
                  stopped.countDown();
                },
                "testkube-shutdown"));
    try {
      kube.seedDemo();
      Path kubeconfig = kube.writeKubeconfig(arguments.kubeconfig()).toAbsolutePath();
      PrintStream out = System.out;
      out.println("testkube ready " + kube.url() + " kubeconfig=" + kubeconfig);
      out.flush();
    } catch (RuntimeException e) {
      System.err.println("testkube: startup failed: " + e);
      System.exit(1);
      return;
    }
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The parsed command line; {@code parse} returns null when help was asked for. */
  record Arguments(Path kubeconfig, int port) {

    static final String USAGE =
        "usage: java -jar gitopshq-testkube-all.jar --kubeconfig <path> [--port <n>]";

    static Arguments parse(String[] args) {
      Path kubeconfig = null;
      int port = 0;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String name = arg;
        String value = null;
        int equals = arg.indexOf('=');
        if (arg.startsWith("--") && equals > 0) {
          name = arg.substring(0, equals);
          value = arg.substring(equals + 1);
        }
        switch (name) {
          case "-h", "--help" -> {
            return null;
          }
          case "--kubeconfig", "--port" -> {
            if (value == null) {
              if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
              }
              value = args[++i];
            }
            if (name.equals("--kubeconfig")) {
              if (value.isBlank()) {
                throw new IllegalArgumentException("--kubeconfig must not be empty");
              }
              kubeconfig = Path.of(value);
            } else {
              port = parsePort(value);
            }
          }
          default -> throw new IllegalArgumentException("unknown argument " + arg);
        }
      }
      if (kubeconfig == null) {
        throw new IllegalArgumentException("--kubeconfig <path> is required");
      }
      return new Arguments(kubeconfig, port);
    }

    private static int parsePort(String value) {
      try {
        int port = Integer.parseInt(value.trim());
        if (port < 0 || port > 65_535) {
          throw new NumberFormatException();
        }
        return port;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--port must be a number from 0 to 65535, was '" + value + "'", e);
      }
    }
  }
}
