package dev.gitopshq.hub.config;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which agent versions this hub works with. The same major version is compatible; an agent more
 * than one minor version behind the hub still works but is flagged (the Clusters page's version
 * drift badge), because features added since may not work with it.
 */
public final class VersionCompatibility {
  private static final Pattern SEMVER = Pattern.compile("v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

  private VersionCompatibility() {}

  record Version(int major, int minor) {}

  static Optional<Version> parse(String v) {
    if (v == null) {
      return Optional.empty();
    }
    Matcher m = SEMVER.matcher(v.trim());
    return m.matches()
        ? Optional.of(new Version(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))))
        : Optional.empty();
  }

  /** Why this hub refuses the agent, or empty when it accepts it. */
  public static Optional<String> refusal(String agentVersion, String hubVersion) {
    Optional<Version> a = parse(agentVersion);
    Optional<Version> h = parse(hubVersion);
    if (a.isEmpty()) {
      return Optional.of(
          "agent_version '" + agentVersion + "' is not a semantic version (MAJOR.MINOR.PATCH)");
    }
    if (h.isPresent() && a.get().major() != h.get().major()) {
      return Optional.of(
          "agent "
              + agentVersion
              + " is not compatible with hub "
              + hubVersion
              + ": major versions differ; install agent chart version "
              + h.get().major()
              + ".x");
    }
    return Optional.empty();
  }

  /**
   * The same decision as {@link #refusal}, worded for a caller not yet authenticated (a {@code
   * Register}): it does not name the hub's version or major version.
   */
  public static Optional<String> anonymousRefusal(String agentVersion, String hubVersion) {
    return refusal(agentVersion, hubVersion)
        .map(
            r ->
                r.contains(" is not compatible with hub ")
                    ? "agent "
                        + agentVersion
                        + " is not compatible with this hub: major versions differ; install the"
                        + " agent chart of the hub's major version"
                    : r);
  }

  /**
   * The Clusters page's version badge: {@code current} (the hub's minor version or newer), {@code
   * behind} (same major, an older minor), {@code unsupported} (another major, or not a version), or
   * null before the agent reported one.
   */
  public static String status(String agentVersion, String hubVersion) {
    if (agentVersion == null || agentVersion.isBlank()) {
      return null;
    }
    Optional<Version> a = parse(agentVersion);
    Optional<Version> h = parse(hubVersion);
    if (a.isEmpty() || (h.isPresent() && a.get().major() != h.get().major())) {
      return "unsupported";
    }
    if (h.isPresent() && a.get().minor() < h.get().minor()) {
      return "behind";
    }
    return "current";
  }

  /** True when the agent is more than one minor version behind the hub. */
  public static boolean drifted(String agentVersion, String hubVersion) {
    Optional<Version> a = parse(agentVersion);
    Optional<Version> h = parse(hubVersion);
    return a.isPresent()
        && h.isPresent()
        && a.get().major() == h.get().major()
        && h.get().minor() - a.get().minor() > 1;
  }
}
