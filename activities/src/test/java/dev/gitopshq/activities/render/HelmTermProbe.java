package dev.gitopshq.activities.render;

import java.nio.file.Path;

/**
 * A JVM of its own for {@code HelmRenderTest}: renders {@code args[0]} once through {@link
 * HelmProcess#template} (which gives the signals back to the JVM), prints {@code rendering slow},
 * renders {@code args[1]} (slow) and prints {@code slow render finished}; a shutdown hook prints
 * {@code shutdown hook ran}.
 */
public final class HelmTermProbe {
  private HelmTermProbe() {}

  public static void main(String[] args) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("shutdown hook ran")));
    render(Path.of(args[0]));
    System.out.println("rendering slow");
    System.out.flush();
    render(Path.of(args[1]));
    System.out.println("slow render finished");
  }

  private static void render(Path chart) {
    HelmProcess.template(
        () -> HelmProcess.helm(chart).template().withName("probe").withNamespace("default").call());
  }
}
