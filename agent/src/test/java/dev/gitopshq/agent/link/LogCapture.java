package dev.gitopshq.agent.link;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures everything written to stdout and stderr (where the agent logs) while still passing it
 * through, so a test can assert what an operator would read.
 */
final class LogCapture implements AutoCloseable {

  private final PrintStream originalOut = System.out;
  private final PrintStream originalErr = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  LogCapture() {
    System.setOut(new PrintStream(new Tee(originalOut), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new Tee(originalErr), true, StandardCharsets.UTF_8));
  }

  String text() {
    synchronized (buffer) {
      return buffer.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setOut(originalOut);
    System.setErr(originalErr);
  }

  private final class Tee extends OutputStream {
    private final OutputStream original;

    Tee(OutputStream original) {
      this.original = original;
    }

    @Override
    public void write(int b) {
      synchronized (buffer) {
        buffer.write(b);
      }
      try {
        original.write(b);
      } catch (java.io.IOException e) {
        // The original stream is the console; losing a byte there does not matter to the test.
      }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      synchronized (buffer) {
        buffer.write(bytes, offset, length);
      }
      try {
        original.write(bytes, offset, length);
      } catch (java.io.IOException e) {
        // As above.
      }
    }
  }
}
