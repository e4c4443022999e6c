package dev.gitopshq.hub.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Requests Spring Security's firewall refuses (a {@code ;} or an encoded {@code /} in the path,
 * {@code ..}, a non-printable header, …) get the API's error shape, a 400 like every other bad
 * request, instead of the servlet container's HTML page.
 */
@Configuration
public class FirewallErrors {
  /** The methods the firewall lets through (StrictHttpFirewall's default). */
  static final List<String> SERVED_METHODS =
      List.of("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT");

  @Bean
  RequestRejectedHandler requestRejectedHandler(ObjectMapper json) {
    return (request, response, rejected) -> {
      if (!SERVED_METHODS.contains(request.getMethod())) {
        // TRACE, CONNECT or an invented method: the firewall refuses them, and they are a 405.
        response.setStatus(405);
        response.setHeader("Allow", String.join(", ", SERVED_METHODS));
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        json.writeValue(
            response.getOutputStream(),
            new ApiError(405, "method_not_allowed", "this method is not allowed here", null));
        return;
      }
      response.setStatus(400);
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      json.writeValue(
          response.getOutputStream(),
          new ApiError(
              400,
              "invalid_request",
              "the request was refused: its URL or headers are not allowed (an encoded '/', ';',"
                  + " '..', or a non-printable character)",
              null));
    };
  }
}
