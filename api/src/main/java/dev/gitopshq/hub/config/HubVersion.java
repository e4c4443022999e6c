package dev.gitopshq.hub.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The hub's version, from the build (gitopshq-version.properties), without "-SNAPSHOT". */
public final class HubVersion {
  private static final String VERSION = load();

  private HubVersion() {}

  public static String current() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = HubVersion.class.getResourceAsStream("/gitopshq-version.properties")) {
      if (in == null) {
        return "0.0.0";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "0.0.0").replace("-SNAPSHOT", "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
