package dev.gitopshq.hub.web;

import java.util.List;

/**
 * The body of every error response.
 *
 * @param status the HTTP status
 * @param error a stable machine-readable code (invalid_request, unauthorized, forbidden, not_found,
 *     conflict, internal, unavailable)
 * @param message a sentence for people
 * @param errors for 400: each offending field and the reason
 */
public record ApiError(int status, String error, String message, List<FieldError> errors) {

  /**
   * One invalid field.
   *
   * @param field the JSON path of the field, e.g. {@code name} or {@code labels.tier}
   * @param reason what is wrong with it
   */
  public record FieldError(String field, String reason) {}
}
