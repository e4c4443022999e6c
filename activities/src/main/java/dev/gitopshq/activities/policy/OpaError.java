package dev.gitopshq.activities.policy;

/**
 * One error as OPA reports it, e.g. a compile error of an uploaded module.
 *
 * @param code OPA's error code, e.g. {@code rego_parse_error} or {@code rego_type_error}
 * @param message OPA's message, unchanged
 * @param location where in the module the error is; null when OPA gave none
 */
public record OpaError(String code, String message, Location location) {

  /**
   * A position in a module.
   *
   * @param file the OPA policy id the module was uploaded as, e.g. {@code gitopshq/approval}
   * @param row the 1-based line
   * @param col the 1-based column
   */
  public record Location(String file, int row, int col) {}

  /**
   * {@code file:row:col: message}, the way compilers print errors; just the message when OPA gave
   * no location.
   */
  public String describe() {
    return location == null
        ? message
        : location.file() + ":" + location.row() + ":" + location.col() + ": " + message;
  }
}
