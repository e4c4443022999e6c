package dev.gitopshq.hub.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.Container;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * Requests Tomcat refuses before Spring sees them (a bad percent-encoding or an illegal character
 * in the URL, a malformed or oversized header) answer in the API's error shape, like every other
 * bad request, instead of Tomcat's HTML page. The answer never repeats the refused input.
 */
@Component
public class TomcatErrors implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

  @Override
  public void customize(TomcatServletWebServerFactory factory) {
    factory.addContextCustomizers(
        context -> {
          Container parent = context.getParent();
          if (parent instanceof StandardHost host) {
            host.setErrorReportValveClass(JsonErrorReportValve.class.getName());
            for (Valve v : host.getPipeline().getValves()) {
              if (v instanceof ErrorReportValve && !(v instanceof JsonErrorReportValve)) {
                host.getPipeline().removeValve(v);
              }
            }
          }
        });
  }

  /** Tomcat's error report, as the API's JSON error. */
  public static class JsonErrorReportValve extends ErrorReportValve {
    @Override
    protected void report(Request request, Response response, Throwable throwable) {
      int status = response.getStatus();
      if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
        return;
      }
      String body =
          "{\"status\":"
              + status
              + ",\"error\":\""
              + error(status)
              + "\",\"message\":\""
              + message(status)
              + "\"}";
      try {
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        Writer w = response.getReporter();
        if (w != null) {
          w.write(body);
          response.finishResponse();
        }
      } catch (IOException | IllegalStateException e) {
        // The client is gone or the response was committed: nothing more to say.
      }
    }

    static String error(int status) {
      return switch (status) {
        case 400 -> "invalid_request";
        case 404 -> "not_found";
        case 405 -> "method_not_allowed";
        case 413 -> "payload_too_large";
        case 414 -> "uri_too_long";
        case 431 -> "headers_too_large";
        case 505 -> "http_version_not_supported";
        default -> status >= 500 ? "internal_error" : "invalid_request";
      };
    }

    static String message(int status) {
      return switch (status) {
        case 400 ->
            "the request is not valid HTTP: its URL, encoding or headers were refused before the"
                + " API saw it";
        case 404 -> "not found";
        case 405 -> "this method is not allowed here";
        case 413 -> "the request body is too large";
        case 414 -> "the URL is too long";
        case 431 -> "the request headers are too large";
        case 505 -> "only HTTP/1.1 and HTTP/2 are served";
        default ->
            status >= 500 ? "the hub could not answer this request" : "the request was refused";
      };
    }
  }
}
