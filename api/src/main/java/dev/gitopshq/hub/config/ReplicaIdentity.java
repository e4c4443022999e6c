package dev.gitopshq.hub.config;

import java.io.IOException;
import java.net.InetAddress;
import java.util.UUID;

/**
 * This hub replica's name: recorded as the holder of the agent streams it serves, and the suffix of
 * its own Temporal task queue, where work that must run next to a stream (token delivery) goes.
 */
public record ReplicaIdentity(String id) {
  /** GITOPSHQ_REPLICA_ID when set, else the host name plus a random suffix. */
  public static ReplicaIdentity of(String configured) {
    if (configured != null && !configured.isBlank()) {
      return new ReplicaIdentity(configured);
    }
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "hub";
    }
    return new ReplicaIdentity(host + "-" + UUID.randomUUID().toString().substring(0, 8));
  }
}
