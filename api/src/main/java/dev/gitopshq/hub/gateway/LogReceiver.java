package dev.gitopshq.hub.gateway;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.v1.LogStreamEnded;

/**
 * Receives one log session's messages from the agent. It is called on the gRPC thread that reads
 * the agent's whole Connect stream, so it must only hand the bytes over, never block.
 */
public interface LogReceiver {
  /** Log bytes (whole lines; empty on the first message, which says the log is open). */
  void chunk(boolean opened, ByteString data);

  /** The session ended on the agent, or the agent's stream ended (then the reason is CLOSED). */
  void ended(LogStreamEnded end);
}
