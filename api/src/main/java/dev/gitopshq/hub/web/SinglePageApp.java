package dev.gitopshq.hub.web;

import java.io.IOException;
import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.resource.PathResourceResolver;

/**
 * Serves the web UI (built from {@code ui/} into the jar's {@code static/}) at {@code /}. A path
 * that is not a file, such as {@code /clusters/42/commands}, is one of the UI's own routes and gets
 * {@code index.html}, so a bookmarked or reloaded page opens. Paths the hub serves itself (the API,
 * Git, actuator) never fall back: an unknown API path stays a JSON 404.
 */
@Configuration
public class SinglePageApp implements WebMvcConfigurer {
  static final List<String> NOT_UI = List.of("api/", "git/", "actuator/", "v3/");

  /**
   * The Content-Security-Policy of every response (SecurityConfig sends it): scripts only from the
   * hub's own files (the built UI has no inline script and needs no eval), no plugins, no {@code
   * <base>}, no framing, forms and connections (fetch, and the log WebSocket: CSP 3's 'self' covers
   * ws/wss to the same host) only to the hub. Styles allow inline style elements and attributes
   * besides the hub's stylesheet, because xterm.js (the log viewer) writes its theme into a {@code
   * <style>} element and xterm.js and CodeMirror set style attributes; a style cannot run script.
   */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none';"
          + " frame-ancestors 'none'; form-action 'self'; connect-src 'self';"
          + " style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'";

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    registry
        .addResourceHandler("/**")
        .addResourceLocations("classpath:/static/")
        .resourceChain(true)
        .addResolver(
            new PathResourceResolver() {
              @Override
              protected Resource getResource(String path, Resource location) throws IOException {
                Resource file = location.createRelative(path);
                if (file.isReadable()) {
                  return file;
                }
                return isUiRoute(path) ? index() : null;
              }
            });
  }

  /** A client-side route: not under a path the hub serves, and not a file name with a dot. */
  static boolean isUiRoute(String path) {
    String last = path.substring(path.lastIndexOf('/') + 1);
    return NOT_UI.stream().noneMatch(path::startsWith) && !last.contains(".");
  }

  private static Resource index() {
    Resource index = new ClassPathResource("static/index.html");
    return index.isReadable() ? index : null;
  }
}
