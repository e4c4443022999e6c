package dev.gitopshq.agent.logs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Cuts a byte stream into lines of at most {@code maxLineBytes} bytes. A longer line keeps its
 * first {@code maxLineBytes} bytes and ends with {@code " [truncated N bytes]"}; the rest of it is
 * counted, never held, so the framer holds at most one cut line whatever the input.
 */
final class LineFramer {
  private final int maxLineBytes;
  private final byte[] line;
  private int length;
  private long dropped;

  LineFramer(int maxLineBytes) {
    if (maxLineBytes < 1) {
      throw new IllegalArgumentException("maxLineBytes must be positive");
    }
    this.maxLineBytes = maxLineBytes;
    this.line = new byte[maxLineBytes];
  }

  /** The marker that ends a cut line. */
  static String marker(long droppedBytes) {
    return " [truncated " + droppedBytes + " bytes]";
  }

  /** Appends {@code len} bytes; every line they complete goes to {@code out} with its newline. */
  void feed(byte[] buf, int off, int len, ByteArrayOutputStream out) {
    for (int i = off; i < off + len; i++) {
      byte b = buf[i];
      if (b == '\n') {
        emit(out, true);
      } else if (length < maxLineBytes) {
        line[length++] = b;
      } else {
        dropped++;
      }
    }
  }

  /** Ends the stream: an unfinished last line goes to {@code out} with a newline. */
  void finish(ByteArrayOutputStream out) {
    if (length > 0 || dropped > 0) {
      emit(out, true);
    }
  }

  /** Bytes of the unfinished line held now (at most {@code maxLineBytes}). */
  int pending() {
    return length;
  }

  private void emit(ByteArrayOutputStream out, boolean newline) {
    out.write(line, 0, length);
    if (dropped > 0) {
      out.writeBytes(marker(dropped).getBytes(StandardCharsets.UTF_8));
    }
    if (newline) {
      out.write('\n');
    }
    length = 0;
    dropped = 0;
  }
}
