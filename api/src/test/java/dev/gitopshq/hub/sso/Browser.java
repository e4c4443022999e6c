package dev.gitopshq.hub.sso;

import java.io.IOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a person's browser does in a sign-in, by plain HTTP: keeps cookies, asks for HTML, and
 * follows redirects one at a time so a test can look at each; fills in the provider's forms.
 */
final class Browser {
  private final CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
  private final HttpClient http =
      HttpClient.newBuilder()
          .cookieHandler(cookies)
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  record Page(int status, URI uri, String location, String body) {
    URI next() {
      return uri.resolve(location);
    }
  }

  Page get(URI uri) {
    return send(HttpRequest.newBuilder(uri).header("Accept", "text/html").GET(), uri);
  }

  Page post(URI uri, List<Map.Entry<String, String>> form) {
    String body =
        form.stream()
            .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
            .collect(Collectors.joining("&"));
    return send(
        HttpRequest.newBuilder(uri)
            .header("Accept", "text/html")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body)),
        uri);
  }

  /** Follows redirects while they stay on {@code host:port}; returns the first page elsewhere. */
  Page follow(Page page, int port) {
    Page p = page;
    for (int i = 0; i < 10 && p.status() / 100 == 3 && p.next().getPort() == port; i++) {
      p = get(p.next());
    }
    return p;
  }

  /**
   * Signs in on the provider's login form (the page {@code loginRedirect} leads to) and returns the
   * redirect the provider answers with.
   */
  Page signIn(Page loginRedirect, String username, String password) {
    Page form = get(loginRedirect.next());
    if (form.status() != 200) {
      throw new AssertionError("no login form: HTTP " + form.status());
    }
    return post(
        form.uri(),
        List.of(
            Map.entry("username", username),
            Map.entry("password", password),
            Map.entry("_csrf", hidden(form.body(), "_csrf"))));
  }

  /** The value of a hidden input of a form. */
  static String hidden(String html, String name) {
    Matcher m =
        Pattern.compile("<input[^>]*name=\"" + Pattern.quote(name) + "\"[^>]*value=\"([^\"]*)\"")
            .matcher(html);
    if (!m.find()) {
      throw new AssertionError("no input " + name + " in:\n" + html);
    }
    return m.group(1);
  }

  /** The values of the checkboxes named {@code name}. */
  static List<String> checkboxes(String html, String name) {
    Matcher m =
        Pattern.compile("type=\"checkbox\" name=\"" + Pattern.quote(name) + "\" value=\"([^\"]*)\"")
            .matcher(html);
    List<String> out = new java.util.ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  static String formAction(String html) {
    Matcher m = Pattern.compile("<form[^>]*action=\"([^\"]*)\"").matcher(html);
    if (!m.find()) {
      throw new AssertionError("no form in:\n" + html);
    }
    return m.group(1);
  }

  /** The query (or fragment) parameters of a URL part. */
  static Map<String, String> params(String query) {
    Map<String, String> out = new LinkedHashMap<>();
    if (query == null) {
      return out;
    }
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  boolean hasCookie(String name) {
    return cookies.getCookieStore().getCookies().stream().anyMatch(c -> c.getName().equals(name));
  }

  private Page send(HttpRequest.Builder b, URI uri) {
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Page(
          r.statusCode(), uri, r.headers().firstValue("Location").orElse(null), r.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
