package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.HubMessage;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The hub's side of one agent stream, for tests: always ready, never cancelled, recording what the
 * hub sent down it and the error that ended it.
 */
final class RecordingStream extends ServerCallStreamObserver<HubMessage> {
  final List<HubMessage> sent = new CopyOnWriteArrayList<>();
  volatile Throwable ended;

  /** The correlation ids of what was sent, in order. */
  List<String> refs() {
    return sent.stream().map(HubMessage::getCorrelationId).toList();
  }

  @Override
  public void onNext(HubMessage value) {
    sent.add(value);
  }

  @Override
  public void onError(Throwable t) {
    ended = t;
  }

  @Override
  public void onCompleted() {}

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public void setOnCancelHandler(Runnable onCancelHandler) {}

  @Override
  public void setCompression(String compression) {}

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {}

  @Override
  public void disableAutoInboundFlowControl() {}

  @Override
  public void request(int count) {}

  @Override
  public void setMessageCompression(boolean enable) {}
}
