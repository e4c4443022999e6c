package dev.gitopshq.hub.cluster;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the ready-to-paste {@code helm upgrade --install} line returned at registration: the agent
 * chart from the hub's own chart repository ({@code --repo <hub>/charts --version <v>}), or from
 * {@code GITOPSHQ_AGENT_CHART} when that names another reference. Values are escaped twice: for
 * Helm's {@code --set} syntax (backslash, comma) and for a POSIX shell (single quotes), so a
 * display name like {@code Prod, EU "west"} arrives intact.
 */
final class InstallCommand {
  private InstallCommand() {}

  /**
   * @param chartRef a chart reference to install from instead of the hub's repository (for example
   *     an OCI reference a company mirrors the chart to); empty: the hub's repository
   * @param repoUrl the hub's chart repository, {@code <public URL>/charts}
   * @param chartName the chart's name in that repository
   * @param chartVersion the chart version this hub serves, pinned with {@code --version}
   */
  static String build(
      String chartRef,
      String repoUrl,
      String chartName,
      String chartVersion,
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

    StringBuilder cmd = new StringBuilder("helm upgrade --install gitopshq-agent ");
    if (chartRef != null && !chartRef.isBlank()) {
      cmd.append(shellQuote(chartRef));
    } else {
      cmd.append(shellQuote(chartName))
          .append(" --repo ")
          .append(shellQuote(repoUrl))
          .append(" --version ")
          .append(shellQuote(chartVersion));
    }
    cmd.append(" --namespace gitopshq-system --create-namespace");
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
