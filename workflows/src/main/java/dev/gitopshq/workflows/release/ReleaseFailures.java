package dev.gitopshq.workflows.release;

/** Failure types the release activities raise that must not be retried. */
public final class ReleaseFailures {
  /** The release's revision will never have a delivery (its generation failed). */
  public static final String NO_DELIVERY = "NoDelivery";

  private ReleaseFailures() {}
}
