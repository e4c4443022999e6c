package dev.gitopshq.workflows.governance;

import java.util.List;

/**
 * Who asked for a command or a deployment.
 *
 * @param type member or service_account
 * @param role the member's role; empty for service accounts
 * @param behind the member ids who stand behind a service account (its creator and owner); empty
 *     for members. None of them may approve the request.
 */
public record Requester(
    String id, String type, String name, String role, List<String> teams, List<String> behind) {
  public Requester {
    teams = teams == null ? List.of() : List.copyOf(teams);
    behind = behind == null ? List.of() : List.copyOf(behind);
  }
}
