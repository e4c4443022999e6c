package dev.gitopshq.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The bare call OpaLatencyBench compares {@code OpaClient} with: the same transport (cleartext
 * HTTP/2 with prior knowledge on one reused connection, OkHttp), a request body serialized once
 * before measuring, and the answer read as bytes, not parsed. What OpaClient takes beyond this is
 * its own work: writing the input, reading the result, its checks.
 */
final class BareOpa implements AutoCloseable {
  private static final MediaType JSON_TYPE = MediaType.get("application/json");

  private final String base;
  private final String authorization;
  private final OkHttpClient http;

  /**
   * @param baseUrl e.g. {@code http://127.0.0.1:18181}, an OPA run with {@code --h2c}
   * @param bearerToken sent as {@code Authorization: Bearer <token>}; null for none
   */
  BareOpa(String baseUrl, String bearerToken) {
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.authorization = bearerToken == null ? null : "Bearer " + bearerToken;
    this.http =
        new OkHttpClient.Builder()
            .protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE))
            .connectTimeout(Duration.ofSeconds(2))
            .callTimeout(Duration.ofSeconds(10))
            .build();
  }

  /** POSTs the bytes; the answer's body, after checking that it is 200 over HTTP/2. */
  byte[] post(String path, byte[] body) {
    Request.Builder b = new Request.Builder().url(base + path).post(RequestBody.create(body, JSON_TYPE));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    try (Response r = http.newCall(b.build()).execute()) {
      byte[] answer = r.body().bytes();
      if (r.code() != 200 || r.protocol() != Protocol.H2_PRIOR_KNOWLEDGE) {
        throw new IllegalStateException(
            "POST " + path + ": expected 200 over h2c, got " + r.code() + " over " + r.protocol());
      }
      return answer;
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + path + " failed: " + e, e);
    }
  }

  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
