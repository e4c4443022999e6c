package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * JSON over HTTP/1.1 with keep-alive, optionally with a bearer token: the benchmark's client for
 * the hub's REST API and for bare calls to OPA. One instance holds one connection pool; calls are
 * sequential.
 */
final class JsonHttp implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A status code and the raw body. */
  record Response(int status, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("the answer is not JSON: " + abbreviate(body), e);
      }
    }

    /** The body as JSON, after checking the status. */
    JsonNode expect(int wanted, String what) {
      if (status != wanted) {
        throw new IllegalStateException(
            what + ": expected HTTP " + wanted + ", got " + status + ": " + abbreviate(body));
      }
      return json();
    }
  }

  private final URI base;
  private final String authorization;
  private final HttpClient http;

  /**
   * @param baseUrl e.g. {@code http://127.0.0.1:18080}
   * @param bearerToken sent as {@code Authorization: Bearer <token>}; null for none
   */
  JsonHttp(String baseUrl, String bearerToken) {
    this.base =
        URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
    this.authorization = bearerToken == null ? null : "Bearer " + bearerToken;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
  }

  Response get(String path) {
    return send(builder(path).GET().build());
  }

  /** The body of a text document (e.g. /actuator/prometheus); fails unless the answer is 200. */
  String getText(String path) {
    Response r = send(builder(path).setHeader("Accept", "text/plain").GET().build());
    if (r.status() != 200) {
      throw new IllegalStateException(
          "GET " + path + ": HTTP " + r.status() + ": " + abbreviate(r.body()));
    }
    return r.body();
  }

  /** POSTs a body already serialized (benchmarks serialize once, outside the timed loop). */
  Response post(String path, byte[] json) {
    return send(
        builder(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json))
            .build());
  }

  Response post(String path, Object body) {
    return post(path, bytes(body));
  }

  /** Any method with a JSON body (PUT, PATCH). */
  Response send(String method, String path, Object body) {
    return send(
        builder(path)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes(body)))
            .build());
  }

  static byte[] bytes(Object body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpRequest.Builder builder(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Accept", "application/json");
    return authorization == null ? b : b.header("Authorization", authorization);
  }

  private Response send(HttpRequest request) {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri() + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static String abbreviate(String s) {
    return s == null ? "" : s.length() <= 400 ? s : s.substring(0, 400) + "...";
  }

  @Override
  public void close() {
    http.close();
  }
}
