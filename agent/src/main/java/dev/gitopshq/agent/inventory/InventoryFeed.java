package dev.gitopshq.agent.inventory;

import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inventory as the agent runs it (capability {@code observe}): the informers ({@link
 * InventoryWatch}), what is due to the hub ({@link InventoryPublisher}) and the thread that sends
 * it every second. The informers start once the hub has welcomed the agent, so a cluster that never
 * connects is never listed.
 */
public final class InventoryFeed implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InventoryFeed.class);
  private static final Duration FLUSH = Duration.ofSeconds(1);

  private final InventoryPublisher publisher;
  private final InventoryWatch watch;
  private final BooleanSupplier connected;
  private final ScheduledExecutorService flusher =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "gitopshq-inventory");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param send sends on the Connect stream; false when it could not
   * @param connected whether the hub has welcomed the current stream
   */
  public InventoryFeed(
      Supplier<KubernetesClient> kube,
      Predicate<AgentMessage> send,
      BooleanSupplier connected,
      Clock clock) {
    this.publisher = new InventoryPublisher(send, clock);
    this.watch = new InventoryWatch(kube, publisher);
    this.connected = connected;
    flusher.scheduleWithFixedDelay(
        this::flush, FLUSH.toMillis(), FLUSH.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A whole snapshot is due: after every Welcome, and when the hub asks for one. */
  public void snapshotDue() {
    publisher.snapshotDue();
  }

  /** How many objects the inventory holds. */
  public int size() {
    return publisher.size();
  }

  /** The heartbeat's status with the inventory's part added. */
  public AgentStatus status(AgentStatus base) {
    return base.toBuilder()
        .setInventoryObjects(publisher.size())
        .setInventorySynced(watch.synced())
        .addAllInventoryUnavailable(watch.unavailable())
        .build();
  }

  /** Starts the informers once connected, then sends what is due; on the flusher's thread. */
  private void flush() {
    try {
      if (!connected.getAsBoolean()) {
        return;
      }
      watch.start();
      publisher.flush();
    } catch (RuntimeException e) {
      log.warn("inventory: {}", Redactor.redact(e.toString()));
    }
  }

  @Override
  public void close() {
    flusher.shutdownNow();
    watch.close();
  }
}
