package dev.gitopshq.hub.web;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.gitopshq.activities.git.UnsafePathException;
import java.sql.SQLException;
import java.util.stream.Collectors;
import org.apache.catalina.connector.ClientAbortException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingPathVariableException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.multipart.MultipartException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Turns exceptions into {@link ApiError} responses. */
@RestControllerAdvice
public class ApiExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

  @ExceptionHandler(ApiException.class)
  ResponseEntity<ApiError> api(ApiException e) {
    // JSON whatever the request accepts: a browser (Accept: text/html) landing on the SSO
    // callback gets the error body, not a 500 for a failed content negotiation.
    return ResponseEntity.status(e.error().status())
        .contentType(MediaType.APPLICATION_JSON)
        .body(e.error());
  }

  /** Malformed JSON, a wrong type or an unknown field: 400 naming the field. */
  /** A body read past its route's limit ({@link RequestSizeFilter}). */
  @ExceptionHandler(RequestSizeFilter.BodyTooLargeException.class)
  ResponseEntity<ApiError> tooLarge(RequestSizeFilter.BodyTooLargeException e) {
    return ResponseEntity.status(413).body(RequestSizeFilter.tooLarge(e.limit()));
  }

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RequestSizeFilter.BodyTooLargeException big) {
        return tooLarge(big);
      }
      if (t instanceof StreamConstraintsException limit) {
        // Nesting, string or number length past the hub's bounds (JsonLimits).
        return api(
            ApiException.invalid("body", "is too deep or too long: " + limit.getOriginalMessage()));
      }
      if (t instanceof JsonParseException parse
          && parse.getOriginalMessage().startsWith("Duplicate field")) {
        return api(ApiException.invalid("body", parse.getOriginalMessage().replace('\'', '"')));
      }
    }
    if (e.getCause() instanceof JsonMappingException jme && !jme.getPath().isEmpty()) {
      String field =
          jme.getPath().stream()
              .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
              .collect(Collectors.joining("."))
              .replace(".[", "[");
      String reason =
          jme instanceof UnrecognizedPropertyException
              ? "is not a known field"
              : "has the wrong type or format";
      return api(ApiException.invalid(field, reason));
    }
    return api(ApiException.invalid("body", "must be a JSON object"));
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  ResponseEntity<ApiError> typeMismatch(MethodArgumentTypeMismatchException e) {
    return api(ApiException.invalid(e.getName(), "has the wrong format"));
  }

  @ExceptionHandler(MissingServletRequestParameterException.class)
  ResponseEntity<ApiError> missing(MissingServletRequestParameterException e) {
    return api(ApiException.invalid(e.getParameterName(), "is required"));
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  ResponseEntity<ApiError> mediaType(HttpMediaTypeNotSupportedException e) {
    return ResponseEntity.status(415)
        .body(new ApiError(415, "unsupported_media_type", "send application/json", null));
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<ApiError> method(HttpRequestMethodNotSupportedException e) {
    // RFC 9110: a 405 lists the methods the resource does support.
    var answer = ResponseEntity.status(405);
    if (e.getSupportedHttpMethods() != null) {
      answer.allow(e.getSupportedHttpMethods().toArray(HttpMethod[]::new));
    }
    return answer.body(new ApiError(405, "method_not_allowed", e.getMessage(), null));
  }

  @ExceptionHandler(NoResourceFoundException.class)
  ResponseEntity<ApiError> noResource(NoResourceFoundException e) {
    return api(ApiException.notFound("resource"));
  }

  /** A user-supplied path that could escape its directory, caught where it is used. */
  @ExceptionHandler(UnsafePathException.class)
  ResponseEntity<ApiError> unsafePath(UnsafePathException e) {
    return api(ApiException.invalid("path", e.getMessage()));
  }

  /**
   * A {@code multipart/form-data} request the container cannot parse (no boundary, a broken part):
   * the client's mistake, found by Schemathesis as a 500.
   */
  @ExceptionHandler(MultipartException.class)
  ResponseEntity<ApiError> multipart(MultipartException e) {
    return api(
        ApiException.invalid("Content-Type", "is not a readable multipart/form-data request"));
  }

  /**
   * A path variable that is there but converts to nothing, such as a UUID given as a tab ({@code
   * /api/v2/projects/%09}): 400 naming it. A variable the route really lacks stays a 500 (a bug).
   */
  @ExceptionHandler(MissingPathVariableException.class)
  ResponseEntity<ApiError> pathVariable(MissingPathVariableException e) {
    if (e.isMissingAfterConversion()) {
      return api(ApiException.invalid(e.getVariableName(), "has the wrong format"));
    }
    return unexpected(e);
  }

  /**
   * Text PostgreSQL cannot store (a NUL character: SQLSTATE 22021) reaching a query, from any
   * field: 400 rather than a 500. Every other data error is still a 500.
   */
  @ExceptionHandler(DataIntegrityViolationException.class)
  ResponseEntity<ApiError> badText(DataIntegrityViolationException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "22021".equals(sql.getSQLState())) {
        return api(ApiException.invalid("request", "must not contain NUL characters"));
      }
    }
    return unexpected(e);
  }

  /**
   * A cookie or parameter whose percent-encoding is broken ({@code %u~}), which Spring's argument
   * resolvers refuse with this message: 400 rather than a 500.
   */
  @ExceptionHandler(IllegalArgumentException.class)
  ResponseEntity<ApiError> illegalArgument(IllegalArgumentException e) {
    StackTraceElement[] at = e.getStackTrace();
    if (at.length > 0
        && at[0].getClassName().equals("org.springframework.util.StringUtils")
        && at[0].getMethodName().equals("uriDecode")) {
      return api(ApiException.invalid("request", "has a malformed percent-encoding"));
    }
    return unexpected(e);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ApiError> unexpected(Exception e) {
    if (clientGone(e)) {
      // A reader that closed a followed log or cancelled a download: nothing can be written, and
      // nothing went wrong. (Null: the response counts as handled and stays as it is.)
      log.debug("the client went away mid-response: {}", e.toString());
      return null;
    }
    if (DatabaseUnavailable.causedBy(e)) {
      // PostgreSQL restarting or failing over: 503 with Retry-After, not a 500.
      return DatabaseUnavailable.response(e);
    }
    log.error("unhandled error", e);
    return ResponseEntity.status(500)
        .body(new ApiError(500, "internal", "the hub could not complete the request", null));
  }

  /** Whether the client closed the connection while the response was being written. */
  static boolean clientGone(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AsyncRequestNotUsableException || t instanceof ClientAbortException) {
        return true;
      }
    }
    return false;
  }
}
