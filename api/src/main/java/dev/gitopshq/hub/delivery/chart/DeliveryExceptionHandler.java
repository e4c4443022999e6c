package dev.gitopshq.hub.delivery.chart;

import dev.gitopshq.hub.web.ApiError;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.multipart.MaxUploadSizeExceededException;

/** A multipart chart upload over the size limit is refused before any controller runs: 413. */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class DeliveryExceptionHandler {
  @ExceptionHandler(MaxUploadSizeExceededException.class)
  ResponseEntity<ApiError> tooLarge(MaxUploadSizeExceededException e) {
    ApiError error = ChartController.tooLarge().error();
    return ResponseEntity.status(error.status()).body(error);
  }
}
