package io.thinvol.driver.csi;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The address a call on the TLS port came from, for the checks that depend on who calls (a replica
 * is sent only to the standby node's driver pod). Null on a unix socket.
 */
public final class CallerAddress implements ServerInterceptor {

  private static final Context.Key<InetAddress> ADDRESS = Context.key("thinvol-caller-address");

  /** The calling peer's IP address, or null when the call did not come over IP. */
  static InetAddress current() {
    return ADDRESS.get();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    InetAddress address = remote instanceof InetSocketAddress socket ? socket.getAddress() : null;
    return Contexts.interceptCall(
        Context.current().withValue(ADDRESS, address), call, headers, next);
  }
}
