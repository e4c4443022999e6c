package dev.gitopshq.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;

/** The {@code gitopshq} entry point. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int code = run(args, out, err, System.getenv(), System.in);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /** Runs one command line with the given streams and environment; returns the exit code. */
  public static int run(
      String[] args, PrintWriter out, PrintWriter err, Map<String, String> env, InputStream stdin) {
    return commandLine(out, err, env, stdin).execute(args);
  }

  static CommandLine commandLine(
      PrintWriter out, PrintWriter err, Map<String, String> env, InputStream stdin) {
    Root root = new Root(env, out, err, stdin);
    CommandLine cl = new CommandLine(root);
    cl.setOut(out);
    cl.setErr(err);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionExceptionHandler(
        (ex, line, parsed) -> {
          if (ex instanceof CliException ce) {
            if (ce.getMessage() != null && !ce.getMessage().isEmpty()) {
              err.println("error: " + ce.getMessage());
            }
            err.flush();
            return ce.exitCode();
          }
          err.println("error: " + ex);
          err.flush();
          return ExitCode.ERROR;
        });
    return cl;
  }
}
