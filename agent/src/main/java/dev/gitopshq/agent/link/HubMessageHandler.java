package dev.gitopshq.agent.link;

import dev.gitopshq.agent.v1.HubMessage;

/**
 * Receives the hub's messages other than Welcome (which {@link HubLink} handles itself), such as
 * ExecuteCommand. Answers go back through {@link HubLink#send}.
 *
 * <p>It is called on a gRPC thread, in stream order, and must return quickly: work that touches the
 * cluster belongs on the handler's own executor.
 */
@FunctionalInterface
public interface HubMessageHandler {

  /** Handles one message; exceptions are logged and do not end the stream. */
  void onMessage(HubMessage message);
}
