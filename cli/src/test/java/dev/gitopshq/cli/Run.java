package dev.gitopshq.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

/** Runs the CLI in this JVM with captured output and a chosen environment. */
final class Run {
  record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private final Map<String, String> env = new HashMap<>();
  private String stdin = "";

  Run env(String key, String value) {
    env.put(key, value);
    return this;
  }

  Run stdin(String text) {
    this.stdin = text;
    return this;
  }

  Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Main.run(
            args,
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.copyOf(env),
            new ByteArrayInputStream(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    return new Result(code, out.toString(), err.toString());
  }
}
