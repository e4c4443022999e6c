package dev.gitopshq.workflows.command;

import java.util.List;

/**
 * Who asked for a command.
 *
 * @param type member or service_account
 * @param role the member's role; empty for service accounts
 */
public record Requester(String id, String type, String name, String role, List<String> teams) {
  public Requester {
    teams = teams == null ? List.of() : List.copyOf(teams);
  }
}
