package dev.gitopshq.bench;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pod log sessions through hub and agent: the line rate of one follow session alone, then {@code
 * --sessions} follow sessions of the same chatty pod at once with one more reader that never reads
 * (a socket with a 4 KiB receive buffer), sampling the hub's heap every second. Prints the rates,
 * the heap, and when and why the stalled session was cut (from its audit entry).
 *
 * <p>Options: --hub-url, --cluster-id, --namespace, --pod, --sessions (50), --seconds (30).
 * Token: BENCH_HUB_TOKEN.
 */
public final class LogSessionsBench {
  private static final Pattern HEAP =
      Pattern.compile("^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*} ([0-9.eE+]+)", Pattern.MULTILINE);

  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    String hub = a.required("hub-url");
    String cluster = a.required("cluster-id");
    String ns = a.get("namespace", "demo");
    String pod = a.required("pod");
    int sessions = a.intValue("sessions", 50, 1);
    int seconds = a.intValue("seconds", 30, 5);
    a.rejectUnknown();
    String token = Args.env("BENCH_HUB_TOKEN");
    HttpClient http = HttpClient.newHttpClient();
    String path =
        "/api/v2/clusters/" + cluster + "/logs?namespace=" + ns + "&pod=" + pod + "&tailLines=1&follow=true";

    long heapIdle = heap(http, hub, token);
    double alone = rates(http, hub + path, token, 1, seconds / 2, null).get(0);
    System.out.printf("one session alone: %.0f lines/s%n", alone);

    // The stalled reader: it asks, reads the headers, and then never reads again.
    Socket stalled = new Socket();
    stalled.setReceiveBufferSize(4096);
    stalled.connect(new InetSocketAddress(URI.create(hub).getHost(), URI.create(hub).getPort()));
    OutputStream out = stalled.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer " + token + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    byte[] head = new byte[256];
    int n = stalled.getInputStream().read(head);
    String status = new String(head, 0, Math.max(0, n), StandardCharsets.US_ASCII).lines().findFirst().orElse("");
    System.out.println("stalled reader: " + status + ", then reads nothing");
    long stalledAt = System.nanoTime();

    List<Long> heapSamples = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (sampling.get()) {
                    try {
                      heapSamples.add(heap(http, hub, token));
                      Thread.sleep(1000);
                    } catch (Exception e) {
                      return;
                    }
                  }
                });
    List<Double> many = rates(http, hub + path, token, sessions, seconds, null);
    sampling.set(false);
    sampler.join();
    List<Double> sorted = new ArrayList<>(many);
    Collections.sort(sorted);
    System.out.printf(
        "%d sessions at once (and the stalled one): lines/s per session min %.0f, median %.0f, max %.0f (alone %.0f); %d of %d within 10%% of alone%n",
        sessions,
        sorted.get(0),
        sorted.get(sorted.size() / 2),
        sorted.get(sorted.size() - 1),
        alone,
        sorted.stream().filter(r -> r >= alone * 0.9).count(),
        sorted.size());
    long maxHeap = heapSamples.stream().mapToLong(Long::longValue).max().orElse(-1);
    System.out.printf(
        "hub heap used: %d MiB before, max %d MiB during (%d samples; -Xmx768m)%n",
        heapIdle >> 20, maxHeap >> 20, heapSamples.size());

    // The stalled session's end, from its audit entry.
    String entry = "";
    for (int i = 0; i < 60 && !entry.contains("reader_too_slow"); i++) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(hub + "/api/v2/audit?action=cluster.logs&limit=200"))
                  .header("Authorization", "Bearer " + token)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      Matcher m =
          Pattern.compile("\\{[^{}]*\"endReason\":\"reader_too_slow\"[^{}]*}").matcher(r.body());
      entry = m.find() ? m.group() : "";
      if (entry.isEmpty()) {
        Thread.sleep(1000);
      }
    }
    long waited = (System.nanoTime() - stalledAt) / 1_000_000_000L;
    if (entry.isEmpty()) {
      System.out.println("stalled session: NOT cut within " + waited + " s");
    } else {
      long lived =
          Duration.between(
                  Instant.parse(field(entry, "startedAt")),
                  Instant.parse(field(entry, "endedAt")))
              .toSeconds();
      System.out.println(
          "stalled session: cut after "
              + lived
              + " s (started "
              + field(entry, "startedAt")
              + ", ended "
              + field(entry, "endedAt")
              + "), "
              + field(entry, "bytes")
              + " bytes delivered; message: "
              + field(entry, "endMessage"));
    }
    // Reading again: the notice is the last line.
    stalled.setSoTimeout(10_000);
    InputStream in = stalled.getInputStream();
    byte[] buf = new byte[65536];
    StringBuilder tail = new StringBuilder();
    try {
      int k;
      while ((k = in.read(buf)) > 0) {
        tail.append(new String(buf, 0, k, StandardCharsets.UTF_8));
        if (tail.length() > 8192) {
          tail.delete(0, tail.length() - 8192);
        }
        if (tail.indexOf("[gitopshq] log session ended") >= 0) {
          break;
        }
      }
    } catch (SocketTimeoutException e) {
      // Nothing more came.
    }
    int at = tail.indexOf("[gitopshq]");
    System.out.println(
        "stalled reader, reading again, finds: "
            + (at < 0 ? "(no notice)" : tail.substring(at, tail.indexOf("\n", at) < 0 ? tail.length() : tail.indexOf("\n", at))));
    stalled.close();
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":(\"([^\"]*)\"|([0-9]+))").matcher(json);
    return m.find() ? (m.group(2) != null ? m.group(2) : m.group(3)) : "?";
  }

  /**
   * Opens {@code count} follow sessions, each read from the moment it opens; after all are open
   * and two seconds have passed (the tails and the backlog of the first ones are read), counts the
   * lines each gets for {@code seconds}: lines/s per session.
   */
  private static List<Double> rates(
      HttpClient http, String url, String token, int count, int seconds, Object unused)
      throws Exception {
    List<AtomicLong> lines = new ArrayList<>();
    List<HttpResponse<InputStream>> open = new ArrayList<>();
    List<Thread> readers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      HttpResponse<InputStream> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token).build(),
              HttpResponse.BodyHandlers.ofInputStream());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(
            "session " + i + ": HTTP " + r.statusCode() + " " + new String(r.body().readAllBytes(), StandardCharsets.UTF_8));
      }
      open.add(r);
      AtomicLong c = new AtomicLong();
      lines.add(c);
      InputStream in = r.body();
      readers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    byte[] buf = new byte[65536];
                    try {
                      int k;
                      while ((k = in.read(buf)) >= 0) {
                        for (int j = 0; j < k; j++) {
                          if (buf[j] == '\n') {
                            c.incrementAndGet();
                          }
                        }
                      }
                    } catch (Exception e) {
                      // Closed below.
                    }
                  }));
    }
    Thread.sleep(2000);
    long[] before = lines.stream().mapToLong(AtomicLong::get).toArray();
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long[] after = lines.stream().mapToLong(AtomicLong::get).toArray();
    double elapsed = (System.nanoTime() - start) / 1e9;
    for (HttpResponse<InputStream> r : open) {
      r.body().close();
    }
    for (Thread t : readers) {
      t.join(5000);
    }
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add((after[i] - before[i]) / elapsed);
    }
    return out;
  }

  /** The hub's heap in use (Micrometer's jvm_memory_used_bytes, area heap, summed). */
  private static long heap(HttpClient http, String hub, String token) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(hub + "/actuator/prometheus"))
                .header("Authorization", "Bearer " + token)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Matcher m = HEAP.matcher(r.body());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return (long) sum;
  }
}
