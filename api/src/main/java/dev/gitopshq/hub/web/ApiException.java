package dev.gitopshq.hub.web;

import java.util.List;

/** An error the API reports to the caller as it is. */
public class ApiException extends RuntimeException {
  private final ApiError error;

  public ApiException(ApiError error) {
    super(error.message(), null, false, false);
    this.error = error;
  }

  public ApiError error() {
    return error;
  }

  public static ApiException invalid(List<ApiError.FieldError> errors) {
    String message =
        errors.size() == 1
            ? errors.get(0).field() + ": " + errors.get(0).reason()
            : errors.size() + " fields are invalid";
    return new ApiException(new ApiError(400, "invalid_request", message, List.copyOf(errors)));
  }

  public static ApiException invalid(String field, String reason) {
    return invalid(List.of(new ApiError.FieldError(field, reason)));
  }

  public static ApiException unauthorized() {
    return new ApiException(
        new ApiError(401, "unauthorized", "a valid bearer token is required", null));
  }

  public static ApiException forbidden(String message) {
    return new ApiException(new ApiError(403, "forbidden", message, null));
  }

  /**
   * 403: the organization's plan does not open the feature the request uses.
   *
   * @param feature the gate, e.g. {@code FeaturePromotion}
   * @param plan the organization's plan
   * @param minimum the lowest plan that opens the gate
   */
  public static ApiException featureNotInPlan(String feature, String plan, String minimum) {
    return new ApiException(
        new ApiError(
            403,
            "feature_not_in_plan",
            feature
                + " is not in the organization's plan "
                + plan
                + "; it needs plan "
                + minimum
                + " or higher",
            null,
            feature,
            plan));
  }

  public static ApiException notFound(String what) {
    return new ApiException(new ApiError(404, "not_found", what + " not found", null));
  }

  public static ApiException conflict(String message) {
    return new ApiException(new ApiError(409, "conflict", message, null));
  }
}
