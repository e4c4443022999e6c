package dev.gitopshq.hub.peer;

import io.grpc.ClientInterceptor;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The installation's peer key: attached to every peer call this replica makes, and required of
 * every peer call it serves. It is compared in constant time (SHA-256 digests with {@link
 * MessageDigest#isEqual}), and never logged, not even when refused.
 */
final class PeerKey implements ServerInterceptor {
  static final Metadata.Key<String> HEADER =
      Metadata.Key.of("x-gitopshq-peer-key", Metadata.ASCII_STRING_MARSHALLER);

  private static final Logger log = LoggerFactory.getLogger(PeerKey.class);

  private final String key;
  private final byte[] digest;

  /**
   * @throws IllegalStateException when the key is shorter than {@link
   *     PeerProperties#MIN_KEY_LENGTH} or not printable ASCII (it travels as a metadata value)
   */
  PeerKey(String key) {
    if (key.length() < PeerProperties.MIN_KEY_LENGTH
        || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalStateException(
          "GITOPSHQ_PEER_KEY must be at least "
              + PeerProperties.MIN_KEY_LENGTH
              + " printable ASCII characters without spaces (e.g. openssl rand -hex 32)");
    }
    this.key = key;
    this.digest = sha256(key);
  }

  /** Attaches the key to a client's calls. */
  ClientInterceptor attach() {
    Metadata md = new Metadata();
    md.put(HEADER, key);
    return MetadataUtils.newAttachHeadersInterceptor(md);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String presented = headers.get(HEADER);
    if (presented == null || !MessageDigest.isEqual(sha256(presented), digest)) {
      SocketAddress from = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      log.warn(
          "refused a peer call to {} from {}: {} peer key",
          call.getMethodDescriptor().getFullMethodName(),
          from,
          presented == null ? "no" : "wrong");
      call.close(Status.UNAUTHENTICATED.withDescription("peer key refused"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
