package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A freeze window: while it covers the current time, deployments into its environment (or every
 * environment) of its project (or every project) are blocked unless they are break-glass; so are
 * the commands of its {@code commandTypes} on the clusters of its environment (or every cluster),
 * when it is not limited to one project. The {@code gitopshq.freeze} policy reads the
 * organization's windows as data.
 *
 * @param environmentId null: every environment
 * @param environment the environment's current name, or null for every environment
 * @param projectId null: every project
 * @param project the project's current name, or null for every project
 * @param startsAt the first instant the window covers
 * @param endsAt the first instant after the window (exclusive); after {@code startsAt}
 * @param createdBy the member or service-account id that created it
 * @param commandTypes the command types it also holds ({@value #ALL_COMMANDS} for every type);
 *     empty: deployments only
 */
public record FreezeWindowRow(
    UUID id,
    UUID orgId,
    UUID environmentId,
    String environment,
    UUID projectId,
    String project,
    Instant startsAt,
    Instant endsAt,
    String reason,
    String createdBy,
    Instant createdAt,
    List<String> commandTypes) {

  /** In {@code commandTypes}: every command type, including ones added later. */
  public static final String ALL_COMMANDS = "all";

  public FreezeWindowRow {
    commandTypes = commandTypes == null ? List.of() : List.copyOf(commandTypes);
  }

  /** True when the window holds commands of {@code type}. */
  public boolean holdsCommand(String type) {
    return commandTypes.contains(ALL_COMMANDS) || commandTypes.contains(type);
  }

  /** True when the window covers {@code at}: {@code startsAt <= at < endsAt}. */
  public boolean covers(Instant at) {
    return !startsAt.isAfter(at) && endsAt.isAfter(at);
  }
}
