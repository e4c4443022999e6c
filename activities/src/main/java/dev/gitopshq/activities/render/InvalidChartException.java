package dev.gitopshq.activities.render;

/** An uploaded chart archive that is refused; the message says why, for the person uploading. */
public class InvalidChartException extends IllegalArgumentException {
  public InvalidChartException(String reason) {
    super(reason);
  }

  public InvalidChartException(String reason, Throwable cause) {
    super(reason, cause);
  }
}
