package dev.gitopshq.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The agent's semantic version, e.g. {@code 0.1.0}, as reported to the hub in Register and Hello.
 * Maven writes the project version into {@code agent-version.properties} at build time; a {@code
 * -SNAPSHOT} suffix is dropped because the hub compares plain semantic versions.
 */
public final class AgentVersion {

  private static final String RESOURCE = "/agent-version.properties";
  private static final String UNKNOWN = "0.0.0";
  private static final String VERSION = read();

  private AgentVersion() {}

  /** The running agent's version. */
  public static String current() {
    return VERSION;
  }

  private static String read() {
    try (InputStream in = AgentVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return UNKNOWN;
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "").trim();
      // An unfiltered resource (e.g. run from an IDE without Maven) still holds the placeholder.
      if (version.isEmpty() || version.startsWith("${")) {
        return UNKNOWN;
      }
      return version.endsWith("-SNAPSHOT")
          ? version.substring(0, version.length() - "-SNAPSHOT".length())
          : version;
    } catch (IOException e) {
      return UNKNOWN;
    }
  }
}
