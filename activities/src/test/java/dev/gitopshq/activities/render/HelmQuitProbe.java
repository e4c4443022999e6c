package dev.gitopshq.activities.render;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A JVM of its own for {@code HelmRenderTest}: renders the chart in {@code args[0]} a few times
 * through {@link HelmProcess}, frees Helm's goroutines once, prints {@code ready <released>
 * <jvmHoldsQuit>} and waits until its standard input closes.
 */
public final class HelmQuitProbe {
  private HelmQuitProbe() {}

  public static void main(String[] args) throws IOException {
    Path chart = Path.of(args[0]);
    for (int i = 0; i < 3; i++) {
      HelmProcess.template(
          () ->
              HelmProcess.helm(chart).template().withName("probe").withNamespace("default").call());
    }
    boolean released = HelmProcess.releaseGoroutines();
    System.out.println("ready " + released + " " + HelmProcess.QuitSignal.jvmHoldsIt());
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the test closes our input
    }
  }
}
