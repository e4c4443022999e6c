package dev.gitopshq.hub.delivery;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.gitopshq.activities.delivery.VariableRow;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.OrgApplied;
import dev.gitopshq.hub.delivery.ProjectChanges.ProjectOutcome;
import java.time.Instant;
import java.util.List;

/** What the object model's API returns, shared by its parts. */
public final class DeliveryViews {
  private DeliveryViews() {}

  public record Items<T>(List<T> items) {}

  /**
   * A project configuration change's answer: the resource (its fields inline) and the outcome.
   *
   * @param changed false when config/ came out as it was (no commit, no new revision)
   * @param revision the project's configuration revision afterwards
   * @param commit main's head afterwards
   */
  public record Changed<T>(boolean changed, long revision, String commit, @JsonUnwrapped T item) {
    public static <T, R> Changed<R> of(Applied<T> a, R item) {
      return new Changed<>(
          a.outcome().changed(), a.outcome().revision(), a.outcome().commit(), item);
    }
  }

  /**
   * An organization-level change's answer: the resource and every project whose configuration it
   * changed (each with its new revision and commit).
   */
  public record OrgChanged<T>(@JsonUnwrapped T item, List<ProjectOutcome> projects) {
    public static <T, R> OrgChanged<R> of(OrgApplied<T> a, R item) {
      return new OrgChanged<>(item, a.projects());
    }
  }

  /** Only the outcome: for deletions of project configuration. */
  public record Outcome(boolean changed, long revision, String commit) {
    public static Outcome of(Applied<?> a) {
      return new Outcome(a.outcome().changed(), a.outcome().revision(), a.outcome().commit());
    }
  }

  public record VariableView(
      String scope,
      String environment,
      String tenant,
      String service,
      String key,
      String value,
      String updatedBy,
      Instant updatedAt) {
    public static VariableView of(VariableRow r) {
      return new VariableView(
          r.scope(),
          r.environment(),
          r.tenant(),
          r.service(),
          r.key(),
          r.value(),
          r.updatedBy(),
          r.updatedAt());
    }
  }
}
