package dev.gitopshq.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /metrics} in Prometheus' text format on {@code GITOPSHQ_METRICS_PORT}: the only port
 * the agent listens on, and only when that is set. One thread answers, so a scraper cannot make the
 * agent do more than one scrape at a time; anything but {@code GET /metrics} is 404 or 405.
 */
public final class MetricsServer implements AutoCloseable {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final HttpServer server;
  private final ExecutorService executor;

  /**
   * @param port the port; 0 picks a free one (tests)
   * @param connected whether the agent's stream to the hub is up now
   */
  public MetricsServer(int port, BooleanSupplier connected) {
    Gauge.builder("gitopshq.agent.connected", () -> connected.getAsBoolean() ? 1 : 0)
        .description("1 while the hub's Connect stream is open and welcomed")
        .register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    Metrics.addRegistry(registry);
    try {
      server = HttpServer.create(new InetSocketAddress(port), 16);
    } catch (IOException e) {
      Metrics.removeRegistry(registry);
      throw new UncheckedIOException("cannot listen on metrics port " + port, e);
    }
    server.createContext("/", this::handle);
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "agent-metrics");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestURI().getPath().equals("/metrics")) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")) {
        exchange.getResponseHeaders().add("Allow", "GET");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    gc.close();
    Metrics.removeRegistry(registry);
    registry.close();
  }
}
