package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.Writer;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The hub's REST API over {@link HttpClient}. Every call names an {@link Endpoint}; an error answer
 * becomes a {@link CliException} carrying the hub's message and the matching exit code. The token
 * is sent only in the {@code Authorization} header and never appears in a message.
 */
public final class HubClient {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_BODY = 32 * 1024 * 1024;

  private final URI server;
  private final String token;
  private final HttpClient http;

  public HubClient(String server, String token, Path caFile) {
    this.server =
        URI.create(server.endsWith("/") ? server.substring(0, server.length() - 1) : server);
    if (this.server.getScheme() == null || !this.server.getScheme().matches("https?")) {
      throw new CliException(ExitCode.USAGE, "--server must be an http:// or https:// URL");
    }
    this.token = token;
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1);
    if (caFile != null) {
      b.sslContext(trusting(caFile));
    }
    this.http = b.build();
  }

  public String server() {
    return server.toString();
  }

  /** Fills the path template's placeholders in order with {@code pathArgs}, URL-encoded. */
  static String expand(Endpoint e, Object... pathArgs) {
    String path = e.path();
    for (Object a : pathArgs) {
      int open = path.indexOf('{');
      int close = path.indexOf('}', open);
      if (open < 0) {
        throw new IllegalArgumentException("too many path arguments for " + e);
      }
      String v = URLEncoder.encode(String.valueOf(a), StandardCharsets.UTF_8).replace("+", "%20");
      path = path.substring(0, open) + v + path.substring(close + 1);
    }
    if (path.indexOf('{') >= 0) {
      throw new IllegalArgumentException("missing path arguments for " + e);
    }
    return path;
  }

  public JsonNode call(Endpoint e, Object... pathArgs) {
    return call(e, Map.of(), null, Map.of(), pathArgs);
  }

  public JsonNode call(
      Endpoint e,
      Map<String, List<String>> query,
      Object body,
      Map<String, String> headers,
      Object... pathArgs) {
    String url = url(e, query, pathArgs);
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Accept", "application/json");
    if (token != null && !token.isEmpty()) {
      r.header("Authorization", "Bearer " + token);
    }
    headers.forEach(r::header);
    try {
      if (body != null) {
        r.header("Content-Type", "application/json");
        r.method(e.method(), HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
      } else {
        r.method(e.method(), HttpRequest.BodyPublishers.noBody());
      }
      HttpResponse<InputStream> resp =
          http.send(r.build(), HttpResponse.BodyHandlers.ofInputStream());
      byte[] bytes;
      try (InputStream in = resp.body()) {
        bytes = in.readNBytes(MAX_BODY + 1);
      }
      if (bytes.length > MAX_BODY) {
        throw new CliException(ExitCode.ERROR, "the hub's answer is larger than 32 MiB");
      }
      JsonNode json = parse(bytes);
      if (resp.statusCode() >= 400) {
        throw error(resp.statusCode(), json);
      }
      return json;
    } catch (HttpConnectTimeoutException | ConnectException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "cannot reach the hub at " + server + ": " + describe(ex));
    } catch (HttpTimeoutException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "the hub at " + server + " did not answer in time");
    } catch (IOException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "cannot talk to the hub at " + server + ": " + describe(ex));
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCode.ERROR, "interrupted");
    }
  }

  /** The endpoint's URL with its path arguments and the query's non-null values, encoded. */
  private String url(Endpoint e, Map<String, List<String>> query, Object... pathArgs) {
    StringBuilder url = new StringBuilder(server.toString()).append(expand(e, pathArgs));
    char sep = '?';
    for (Map.Entry<String, List<String>> q : query.entrySet()) {
      for (String v : q.getValue()) {
        if (v == null) {
          continue;
        }
        url.append(sep)
            .append(URLEncoder.encode(q.getKey(), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
        sep = '&';
      }
    }
    return url.toString();
  }

  /**
   * Calls a streaming endpoint and copies its text body to {@code to} as it arrives, flushing after
   * every read, until the hub ends it. Errors before the body are the usual JSON errors.
   */
  public void stream(Endpoint e, Map<String, List<String>> query, Writer to, Object... pathArgs) {
    String url = url(e, query, pathArgs);
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Accept", "text/plain, application/json")
            .GET();
    if (token != null && !token.isEmpty()) {
      r.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<InputStream> resp =
          http.send(r.build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = resp.body()) {
        if (resp.statusCode() >= 400) {
          byte[] bytes = in.readNBytes(MAX_BODY + 1);
          throw error(resp.statusCode(), parse(bytes));
        }
        Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8);
        char[] buf = new char[8192];
        int n;
        while ((n = reader.read(buf)) >= 0) {
          to.write(buf, 0, n);
          to.flush();
        }
      }
    } catch (HttpConnectTimeoutException | ConnectException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "cannot reach the hub at " + server + ": " + describe(ex));
    } catch (HttpTimeoutException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "the hub at " + server + " did not answer in time");
    } catch (IOException ex) {
      throw new CliException(
          ExitCode.UNREACHABLE, "the log stream from " + server + " broke: " + describe(ex));
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCode.ERROR, "interrupted");
    }
  }

  private static String describe(Exception ex) {
    Throwable t = ex;
    while (t.getCause() != null && t.getMessage() == null) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  private static JsonNode parse(byte[] bytes) {
    if (bytes.length == 0) {
      return NullNode.getInstance();
    }
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      return JSON.getNodeFactory().textNode(new String(bytes, StandardCharsets.UTF_8));
    }
  }

  /** The exit code for an HTTP status: the table in docs/cli.md. */
  static int exitCodeFor(int status) {
    return switch (status) {
      case 401, 403 -> ExitCode.FORBIDDEN;
      case 404 -> ExitCode.NOT_FOUND;
      case 409, 422 -> ExitCode.CONFLICT;
      case 502, 503, 504 -> ExitCode.UNREACHABLE;
      default -> ExitCode.ERROR;
    };
  }

  static CliException error(int status, JsonNode body) {
    String message = body.path("message").asText("");
    if (message.isEmpty()) {
      message = "the hub answered HTTP " + status;
    }
    StringBuilder m = new StringBuilder(message);
    for (JsonNode f : body.path("errors")) {
      String line = f.path("field").asText() + ": " + f.path("reason").asText();
      if (!message.equals(line)) {
        m.append("\n  ").append(line);
      }
    }
    if (status == 401) {
      m.append("\n  (log in again: gitopshq login --server URL --token TOKEN)");
    }
    return new CliException(exitCodeFor(status), m.toString(), body);
  }

  /** An SSL context that trusts the certificates in a PEM file (a private CA). */
  static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      if (i == 0) {
        throw new CliException(ExitCode.USAGE, "--ca-file " + caFile + " holds no certificate");
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new CliException(
          ExitCode.USAGE, "cannot read --ca-file " + caFile + ": " + e.getMessage());
    }
  }
}
