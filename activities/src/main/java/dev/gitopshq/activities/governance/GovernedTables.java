package dev.gitopshq.activities.governance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The tables of a {@link GovernedStore} mapper: {@link GovernedSql} writes its statements against
 * them. Constants in the code, never input.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface GovernedTables {
  /** The subjects' table: commands, deployments. */
  String subjects();

  /** Their timeline: command_events, deployment_events. */
  String events();

  /** The timeline's column naming the subject: command_id, deployment_id. */
  String subjectColumn();
}
