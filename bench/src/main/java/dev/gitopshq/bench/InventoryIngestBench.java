package dev.gitopshq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.InventoryDelta;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.agent.v1.InventorySnapshot;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The hub's ingest rate of inventory messages: {@code --clusters} simulated agents register over
 * gRPC, open their Connect streams and say Hello with {@code observe}; then each sends a snapshot
 * of {@code --objects} objects (parts of 500) and afterwards {@code --deltas} deltas of 500 new
 * objects each, all clusters at once. A phase ends when the hub's REST API counts every object; the
 * figure is objects stored per second. Loopback only; bounded by the options and a deadline.
 */
public final class InventoryIngestBench {
  private static volatile boolean finished;

  private InventoryIngestBench() {}

  record Agent(String clusterId, SimAgent sim) {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String hubUrl = args.required("hub-url");
    String grpc = args.required("grpc");
    int clusters = Math.min(500, args.intValue("clusters", 100, 1));
    int objects = Math.min(5_000, args.intValue("objects", 1000, 1));
    int deltas = Math.min(100, args.intValue("deltas", 4, 0));
    Path out = Path.of(args.required("out"));
    String token = System.getenv("BENCH_HUB_TOKEN");

    ManagedChannel channel = ManagedChannelBuilder.forTarget(grpc).usePlaintext().build();
    List<Agent> agents = new ArrayList<>();
    try (JsonHttp hub = new JsonHttp(hubUrl, token)) {
      String run = UUID.randomUUID().toString().substring(0, 6);
      CountDownLatch welcomed = new CountDownLatch(clusters);
      for (int i = 0; i < clusters; i++) {
        String name = "ingest-" + run + "-" + i;
        JsonNode created =
            hub.post("/api/v2/clusters", Map.of("name", name)).expect(201, "registering " + name);
        String clusterId = created.get("cluster").get("id").asText();
        SimAgent sim =
            new SimAgent(name, 30) {
              @Override
              void welcomed() {
                welcomed.countDown();
              }

              @Override
              void failed(Throwable t) {
                if (!finished) {
                  System.err.println("stream of " + name + " ended: " + t);
                }
              }
            };
        sim.channel = channel;
        sim.token =
            SimAgent.register(channel, name, created.get("registrationToken").asText(), 1)
                .getAgentToken();
        sim.open();
        agents.add(new Agent(clusterId, sim));
      }
      if (!welcomed.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not every simulated agent was welcomed within 60 s");
      }
      System.out.printf("%d simulated agents connected%n", clusters);

      // Phase 1: one snapshot per cluster, all at once.
      long t0 = System.nanoTime();
      for (Agent a : agents) {
        String id = UUID.randomUUID().toString();
        int parts = (objects + 499) / 500;
        for (int p = 0; p < parts; p++) {
          InventorySnapshot.Builder part =
              InventorySnapshot.newBuilder().setSnapshotId(id).setPart(p).setLast(p == parts - 1);
          for (int k = p * 500; k < Math.min(objects, (p + 1) * 500); k++) {
            part.addObjects(object(a.clusterId(), k));
          }
          a.sim().send(AgentMessage.newBuilder().setInventorySnapshot(part).build());
        }
      }
      double snapshotSeconds = waitForTotal(hub, agents, (long) clusters * objects, t0);
      double snapshotRate = clusters * (double) objects / snapshotSeconds;
      System.out.printf(
          "snapshots: %,d objects in %.2f s = %,.0f objects/s%n",
          (long) clusters * objects, snapshotSeconds, snapshotRate);

      // Phase 2: deltas of 500 new objects each.
      long t1 = System.nanoTime();
      for (int d = 0; d < deltas; d++) {
        for (Agent a : agents) {
          InventoryDelta.Builder delta = InventoryDelta.newBuilder();
          for (int k = 0; k < 500; k++) {
            delta.addUpserts(object(a.clusterId(), objects + d * 500 + k));
          }
          a.sim().send(AgentMessage.newBuilder().setInventoryDelta(delta).build());
        }
      }
      long total = (long) clusters * (objects + deltas * 500L);
      double deltaSeconds = waitForTotal(hub, agents, total, t1);
      double deltaRate = clusters * deltas * 500.0 / deltaSeconds;
      System.out.printf(
          "deltas: %,d objects in %.2f s = %,.0f objects/s%n",
          (long) clusters * deltas * 500, deltaSeconds, deltaRate);

      finished = true;
      agents.forEach(a -> a.sim().out.onCompleted());
      Map<String, Object> report = new LinkedHashMap<>();
      report.put("clusters", clusters);
      report.put("objectsPerSnapshot", objects);
      report.put("deltaMessagesPerCluster", deltas);
      report.put("snapshotSeconds", snapshotSeconds);
      report.put("snapshotObjectsPerSecond", snapshotRate);
      report.put("deltaSeconds", deltaSeconds);
      report.put("deltaObjectsPerSecond", deltaRate);
      Files.writeString(
          out, JsonHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
      System.out.println("written to " + out);
    } finally {
      channel.shutdownNow();
    }
  }

  static InventoryObject object(String cluster, int k) {
    return InventoryObject.newBuilder()
        .setUid(cluster.substring(0, 8) + "-" + k)
        .setVersion("v1")
        .setKind(k % 3 == 0 ? "Pod" : k % 3 == 1 ? "ConfigMap" : "Service")
        .setNamespace("ns-" + (k % 7))
        .setName("object-" + k)
        .putLabels("app", "bench")
        .putLabels("n", Integer.toString(k))
        .setStatus(k % 3 == 0 ? "Running 1/1" : "1 key")
        .setHealth("Healthy")
        .setResourceVersion(Integer.toString(k))
        .build();
  }

  /** Seconds from {@code start} until the hub counts {@code expected} objects in all clusters. */
  static double waitForTotal(JsonHttp hub, List<Agent> agents, long expected, long start)
      throws InterruptedException {
    long deadline = start + TimeUnit.MINUTES.toNanos(5);
    while (System.nanoTime() < deadline) {
      long sum = 0;
      for (Agent a : agents) {
        JsonNode inv =
            hub.get("/api/v2/clusters/" + a.clusterId() + "/inventory").expect(200, "inventory");
        sum += inv.path("objects").asLong(0);
      }
      if (sum >= expected) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the hub did not store " + expected + " objects within 5 min");
  }
}
