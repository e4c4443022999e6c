package dev.gitopshq.workflows.governance;

import java.util.List;

/**
 * Who asked for a command or a deployment.
 *
 * @param type member or service_account
 * @param role the member's role; empty for service accounts
 * @param behind the ids of who stands behind a service account (its creator and owner, and for an
 *     account made by an account every account up the chain with its creator and owner, down to the
 *     member at the root); empty for members. None of them may approve the request.
 */
public record Requester(
    String id, String type, String name, String role, List<String> teams, List<String> behind) {
  public Requester {
    teams = teams == null ? List.of() : List.copyOf(teams);
    behind = behind == null ? List.of() : List.copyOf(behind);
  }
}
