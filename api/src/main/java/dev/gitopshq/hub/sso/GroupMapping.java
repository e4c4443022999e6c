package dev.gitopshq.hub.sso;

import dev.gitopshq.activities.identity.Role;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What a user's provider groups grant: the highest role of the mappings that name one of the
 * groups, and the union of their teams. A user in no mapped group gets the default role and no
 * teams, or nothing when there is no default role.
 */
public final class GroupMapping {
  private GroupMapping() {}

  /**
   * The outcome for one user.
   *
   * @param matchedGroups the user's groups that some mapping names, sorted
   */
  public record Grant(Role role, List<String> teams, List<String> matchedGroups) {}

  public static Optional<Grant> apply(OidcProperties config, Collection<String> groups) {
    Role role = null;
    TreeSet<String> teams = new TreeSet<>();
    TreeSet<String> matched = new TreeSet<>();
    for (OidcProperties.GroupMapping m : config.groupMappings()) {
      if (!groups.contains(m.group())) {
        continue;
      }
      Role r = Role.parse(m.role()).orElseThrow();
      role = role == null || r.atLeast(role) ? r : role;
      teams.addAll(m.teams());
      matched.add(m.group());
    }
    if (role == null) {
      if (config.defaultRole() == null) {
        return Optional.empty();
      }
      role = Role.parse(config.defaultRole()).orElseThrow();
    }
    return Optional.of(new Grant(role, new ArrayList<>(teams), new ArrayList<>(matched)));
  }
}
