package dev.gitopshq.hub.gateway;

import com.google.protobuf.MessageLite;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small inbound message limit for every call the gateway answers before it knows who is calling
 * ({@code Register}, health checks), while the {@code Connect} stream, which authenticates by its
 * agent token before it reads a message, keeps the server's limit (16 MiB).
 *
 * <p>gRPC reads a message's declared length before its body and refuses a message over the call's
 * limit with {@code RESOURCE_EXHAUSTED} without reading it, so a 15 MB {@code Register} costs the
 * hub nothing but its 5-byte header. grpc-java offers that limit per server only; this sets it per
 * call on the call's stream, the way the server sets its own, before the call asks for its first
 * message. Should a grpc-java upgrade move that field, the limit is enforced after reading instead
 * (the call is refused, the memory was spent) and an error is logged once; {@code
 * AgentGatewayLimitsIT} fails on that.
 *
 * <p>Registered as the outermost server interceptor, so it sees grpc's own call object.
 */
final class PreAuthMessageLimit implements ServerInterceptor {
  /** What a RegisterRequest needs: names, labels, a version and capabilities (well under 4 KiB). */
  static final int LIMIT_BYTES = 32 * 1024;

  private static final Logger log = LoggerFactory.getLogger(PreAuthMessageLimit.class);
  private static final String CONNECT = AgentHubGrpc.getConnectMethod().getFullMethodName();
  private static final Access ACCESS = Access.find();

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (CONNECT.equals(call.getMethodDescriptor().getFullMethodName())) {
      return next.startCall(call, headers);
    }
    if (ACCESS != null && ACCESS.limit(call, LIMIT_BYTES)) {
      return next.startCall(call, headers);
    }
    // Fallback: refuse an oversized message once read.
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        if (message instanceof MessageLite m && m.getSerializedSize() > LIMIT_BYTES) {
          refused = true;
          call.close(tooLarge(), new Metadata());
          return;
        }
        super.onMessage(message);
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }
    };
  }

  static Status tooLarge() {
    return Status.RESOURCE_EXHAUSTED.withDescription(
        "message larger than " + LIMIT_BYTES + " bytes before authentication");
  }

  /** grpc-core's per-stream limit, reached through its call and stream objects. */
  private record Access(Field stream, MethodHandle transportState, MethodHandle setLimit) {
    static Access find() {
      try {
        Class<?> callImpl = Class.forName("io.grpc.internal.ServerCallImpl");
        Field stream = callImpl.getDeclaredField("stream");
        stream.setAccessible(true);
        Class<?> abstractServerStream = Class.forName("io.grpc.internal.AbstractServerStream");
        Method ts = abstractServerStream.getDeclaredMethod("transportState");
        ts.setAccessible(true);
        Class<?> state = Class.forName("io.grpc.internal.AbstractStream$TransportState");
        Method set = state.getDeclaredMethod("setMaxInboundMessageSize", int.class);
        set.setAccessible(true);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        return new Access(stream, lookup.unreflect(ts), lookup.unreflect(set));
      } catch (ReflectiveOperationException | RuntimeException e) {
        log.error(
            "cannot set gRPC's per-call message limit ({}); messages before authentication are"
                + " checked after reading",
            e.toString());
        return null;
      }
    }

    boolean limit(ServerCall<?, ?> call, int bytes) {
      if (!stream.getDeclaringClass().isInstance(call)) {
        return false;
      }
      try {
        Object s = stream.get(call);
        if (!transportState.type().parameterType(0).isInstance(s)) {
          return false;
        }
        Object state = transportState.invoke(s);
        setLimit.invoke(state, bytes);
        return true;
      } catch (Throwable e) {
        return false;
      }
    }
  }
}
