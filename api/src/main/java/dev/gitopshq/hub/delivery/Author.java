package dev.gitopshq.hub.delivery;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.hub.security.HubPrincipal;

/**
 * Who makes a configuration change: the audit actor, the Git author and the line in the commit
 * message's GitOpsHQ-Author trailer.
 *
 * @param display e.g. {@code Ada Admin (member 3f2c...)}
 */
public record Author(Actor actor, String display) {
  /** The image-update webhook: authenticated by the project's secret, not by a person. */
  public static final Author WEBHOOK =
      new Author(
          new Actor("webhook", "image-update", "webhook (image-update)"), "webhook (image-update)");

  public static Author of(HubPrincipal caller) {
    Actor a = caller.actor();
    return new Author(a, a.name() + " (" + a.type().replace('_', ' ') + " " + a.id() + ")");
  }

  public Ident ident() {
    return Ident.of(actor.type(), actor.id(), actor.name());
  }

  /** The name generation requests and commit messages show. */
  public String name() {
    return actor.name();
  }
}
