package dev.gitopshq.hub.cluster;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the ready-to-paste {@code helm upgrade --install} line returned at registration. Values
 * are escaped twice: for Helm's {@code --set} syntax (backslash, comma) and for a POSIX shell
 * (single quotes), so a display name like {@code Prod, EU "west"} arrives intact.
 */
final class InstallCommand {
  private InstallCommand() {}

  static String build(
      String chart,
      String registrationToken,
      String hubAddress,
      String clusterName,
      String displayName,
      String provider,
      String region,
      String environment) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("registrationToken", registrationToken);
    values.put("hub.address", hubAddress);
    values.put("agent.clusterName", clusterName);
    values.put("agent.displayName", displayName);
    values.put("agent.provider", provider);
    values.put("agent.region", region);
    values.put("agent.environment", environment);

    StringBuilder cmd =
        new StringBuilder("helm upgrade --install gitopshq-agent ")
            .append(chart)
            .append(" --namespace gitopshq-system --create-namespace");
    values.forEach(
        (key, value) -> {
          if (value != null && !value.isEmpty()) {
            cmd.append(" --set-string ").append(shellQuote(key + "=" + helmEscape(value)));
          }
        });
    return cmd.toString();
  }

  static String helmEscape(String value) {
    return value.replace("\\", "\\\\").replace(",", "\\,");
  }

  static String shellQuote(String value) {
    if (value.matches("[A-Za-z0-9_./:=@-]+")) {
      return value;
    }
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
