package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** An error to show the user (on stderr) with the exit code it stands for. */
public class CliException extends RuntimeException {
  private final int exitCode;
  private final transient JsonNode body;

  public CliException(int exitCode, String message) {
    this(exitCode, message, null);
  }

  public CliException(int exitCode, String message, JsonNode body) {
    super(message);
    this.exitCode = exitCode;
    this.body = body;
  }

  public int exitCode() {
    return exitCode;
  }

  /** The hub's error body, when the error came from the hub. */
  public JsonNode body() {
    return body;
  }
}
