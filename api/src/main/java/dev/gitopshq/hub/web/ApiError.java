package dev.gitopshq.hub.web;

import java.util.List;

/**
 * The body of every error response.
 *
 * @param status the HTTP status
 * @param error a stable machine-readable code (invalid_request, unauthorized, forbidden,
 *     feature_not_in_plan, not_found, conflict, internal, unavailable)
 * @param message a sentence for people
 * @param errors for 400: each offending field and the reason
 * @param feature for {@code feature_not_in_plan}: the feature gate the request needs, e.g. {@code
 *     FeaturePromotion}
 * @param plan for {@code feature_not_in_plan}: the organization's plan, which lacks the feature
 */
public record ApiError(
    int status,
    String error,
    String message,
    List<FieldError> errors,
    String feature,
    String plan) {

  public ApiError(int status, String error, String message, List<FieldError> errors) {
    this(status, error, message, errors, null, null);
  }

  /**
   * One invalid field.
   *
   * @param field the JSON path of the field, e.g. {@code name} or {@code labels.tier}
   * @param reason what is wrong with it
   */
  public record FieldError(String field, String reason) {}
}
