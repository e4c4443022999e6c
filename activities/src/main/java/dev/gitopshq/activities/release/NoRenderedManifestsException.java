package dev.gitopshq.activities.release;

/** The release's source commit has nothing under {@code rendered/<environment>}. */
public class NoRenderedManifestsException extends RuntimeException {
  public NoRenderedManifestsException(String message) {
    super(message);
  }
}
