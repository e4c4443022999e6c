package dev.gitopshq.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineFramerTest {

  private static String feed(LineFramer f, String... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String p : parts) {
      byte[] b = p.getBytes(StandardCharsets.UTF_8);
      f.feed(b, 0, b.length, out);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void passesWholeLinesAndHoldsAPartialOneUntilItsNewline() {
    LineFramer f = new LineFramer(100);
    assertThat(feed(f, "first\nsec")).isEqualTo("first\n");
    assertThat(f.pending()).isEqualTo(3);
    assertThat(feed(f, "ond\n")).isEqualTo("second\n");
  }

  @Test
  void cutsALongLineAndSaysHowManyBytesWereDropped() {
    LineFramer f = new LineFramer(10);
    String out = feed(f, "0123456789", "ABCDEFGHIJKLMNOPQRST", "\nnext\n");
    assertThat(out).isEqualTo("0123456789 [truncated 20 bytes]\nnext\n");
  }

  @Test
  void holdsAtMostOneCutLineWhateverTheInputSize() {
    LineFramer f = new LineFramer(16);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] mb = new byte[1024 * 1024];
    java.util.Arrays.fill(mb, (byte) 'x');
    for (int i = 0; i < 8; i++) {
      f.feed(mb, 0, mb.length, out);
    }
    assertThat(out.size()).isZero();
    assertThat(f.pending()).isEqualTo(16);
    f.finish(out);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo("x".repeat(16) + " [truncated " + (8L * 1024 * 1024 - 16) + " bytes]\n");
  }

  @Test
  void finishEndsAnUnterminatedLastLine() {
    LineFramer f = new LineFramer(100);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    feed(f, "tail");
    f.finish(out);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("tail\n");
  }
}
