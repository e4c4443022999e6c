package dev.gitopshq.activities.approvalpolicy;

import dev.gitopshq.activities.cluster.LabelSelector;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which approval policy governs a cluster: the rule, in one place (docs/policies.md).
 *
 * <ol>
 *   <li>A policy that names the cluster ({@code clusters}) wins over every selector. Two policies
 *       naming the same cluster are refused when saved.
 *   <li>Otherwise the matching selector with the most requirements wins (each matchLabels pair and
 *       each matchExpressions entry counts one; the empty selector, which matches every cluster,
 *       counts zero and so serves as the organization's default).
 *   <li>Two matching selectors with the same number of requirements are a tie, refused when a
 *       policy is saved; a tie made later by a label change goes to the policy whose name sorts
 *       first, and is reported ({@link PolicyInForce#tiedWith()}).
 *   <li>No policy matches: none is in force, and the approval policy's defaults apply.
 * </ol>
 */
public final class Precedence {
  private Precedence() {}

  /** A cluster as the rule sees it. */
  public record Target(String name, Map<String, String> labels) {}

  /** Two or more policies attached equally specifically to one cluster. */
  public record Conflict(
      String cluster, String attachedBy, List<String> policies, int requirements) {
    public String message() {
      return BY_NAME.equals(attachedBy)
          ? "cluster "
              + cluster
              + " is attached by name to approval policies "
              + String.join(" and ", policies)
              + "; a cluster can be named by one policy only"
          : "cluster "
              + cluster
              + " matches the selectors of approval policies "
              + String.join(" and ", policies)
              + " equally specifically ("
              + requirements
              + (requirements == 1 ? " requirement" : " requirements")
              + " each); make one selector more specific or attach the cluster by name";
    }
  }

  private static final String BY_NAME = PolicyInForce.BY_NAME;

  /** The policy in force for a cluster, if any. {@code policies} are one organization's. */
  public static Optional<PolicyInForce> resolve(List<ApprovalPolicyRow> policies, Target cluster) {
    List<ApprovalPolicyRow> byName =
        policies.stream()
            .filter(p -> p.clusters().contains(cluster.name()))
            .sorted(Comparator.comparing(ApprovalPolicyRow::name))
            .toList();
    if (!byName.isEmpty()) {
      return Optional.of(
          new PolicyInForce(
              byName.get(0),
              BY_NAME,
              null,
              byName.subList(1, byName.size()).stream().map(ApprovalPolicyRow::name).toList()));
    }
    List<Match> matches = selectorMatches(policies, cluster);
    if (matches.isEmpty()) {
      return Optional.empty();
    }
    Match best = matches.get(0);
    List<String> tied =
        matches.stream()
            .skip(1)
            .filter(m -> m.requirements() == best.requirements())
            .map(m -> m.policy().name())
            .toList();
    return Optional.of(
        new PolicyInForce(
            best.policy(), PolicyInForce.BY_SELECTOR, best.selector().describe(), tied));
  }

  /**
   * The conflicts {@code saved} takes part in, given all of the organization's policies with {@code
   * saved} among them and its current clusters: another policy naming one of its clusters, and for
   * each current cluster its selector matches, another matching selector as specific.
   */
  public static List<Conflict> conflicts(
      List<ApprovalPolicyRow> policies, ApprovalPolicyRow saved, List<Target> clusters) {
    List<Conflict> out = new ArrayList<>();
    for (String name : saved.clusters()) {
      List<String> others =
          policies.stream()
              .filter(p -> !p.id().equals(saved.id()) && p.clusters().contains(name))
              .map(ApprovalPolicyRow::name)
              .sorted()
              .toList();
      if (!others.isEmpty()) {
        List<String> all = new ArrayList<>(others);
        all.add(0, saved.name());
        out.add(new Conflict(name, BY_NAME, all, 0));
      }
    }
    LabelSelector mine = saved.selector();
    if (mine == null) {
      return out;
    }
    for (Target cluster : clusters) {
      if (!mine.matches(cluster.labels())) {
        continue;
      }
      List<String> tied =
          selectorMatches(policies, cluster).stream()
              .filter(
                  m ->
                      !m.policy().id().equals(saved.id())
                          && m.requirements() == mine.requirements())
              .map(m -> m.policy().name())
              .toList();
      if (!tied.isEmpty()) {
        List<String> all = new ArrayList<>(tied);
        all.add(0, saved.name());
        out.add(new Conflict(cluster.name(), "selector", all, mine.requirements()));
      }
    }
    return out;
  }

  private record Match(ApprovalPolicyRow policy, LabelSelector selector) {
    int requirements() {
      return selector.requirements();
    }
  }

  /** Policies whose selector matches, most specific first, then by name. */
  private static List<Match> selectorMatches(List<ApprovalPolicyRow> policies, Target cluster) {
    return policies.stream()
        .map(p -> new Match(p, p.selector()))
        .filter(m -> m.selector() != null && m.selector().matches(cluster.labels()))
        .sorted(
            Comparator.comparingInt(Match::requirements)
                .reversed()
                .thenComparing(m -> m.policy().name()))
        .toList();
  }
}
