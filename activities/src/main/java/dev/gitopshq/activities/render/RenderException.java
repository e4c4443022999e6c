package dev.gitopshq.activities.render;

/**
 * A unit could not be rendered; the message names the unit (environment, cluster, tenant, service)
 * and the reason, e.g. Helm's error.
 */
public class RenderException extends RuntimeException {
  public RenderException(String message) {
    super(message);
  }

  public RenderException(String message, Throwable cause) {
    super(message, cause);
  }
}
