package dev.gitopshq.hub.gateway;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Moves the bearer token from the {@code authorization} metadata into the call's {@link Context},
 * where the service reads it. The token is never logged; a missing header leaves it null, which the
 * service answers like any other bad token.
 */
final class BearerCredentials implements ServerInterceptor {
  static final Context.Key<String> TOKEN = Context.key("gitopshq-bearer-token");
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String PREFIX = "Bearer ";

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String header = headers.get(AUTHORIZATION);
    String token = null;
    if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      token = header.substring(PREFIX.length()).trim();
    }
    return Contexts.interceptCall(Context.current().withValue(TOKEN, token), call, headers, next);
  }
}
