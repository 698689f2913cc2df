package io.thinvol.addons.call;

import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceResponse;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.reclaimspace.StorageConsumption;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.SslContextBuilder;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropSnapshotResponse;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.DropVolumeResponse;
import io.thinvol.peer.v1.MoveCopyGrpc;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SnapshotResponse;
import io.thinvol.peer.v1.SpaceRequest;
import io.thinvol.peer.v1.SpaceResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;

/**
 * A driver pod's TLS port in the test's own process: the services the operator calls, answering
 * what the test sets, and what they were asked, with which token and deadline, over how many
 * connections. Its certificate is made for the name the operator checks.
 */
final class StandInDriver implements AutoCloseable {

  /** One call as the driver received it. */
  record Received(String method, Object request, String authorization, Duration deadline) {}

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> TOKEN = Context.key("authorization");
  private static final String ALIAS = "driver";
  private static final char[] PASSWORD = "test-only".toCharArray();

  private final String certificate;
  private final Server server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  volatile CopyInResponse copied = CopyInResponse.getDefaultInstance();
  volatile SpaceResponse space = SpaceResponse.getDefaultInstance();
  volatile SnapshotResponse taken = SnapshotResponse.getDefaultInstance();
  volatile DropSnapshotResponse dropped = DropSnapshotResponse.getDefaultInstance();
  volatile DropVolumeResponse droppedVolume = DropVolumeResponse.getDefaultInstance();
  volatile Status failure;

  StandInDriver(Path dir, String namespace) throws Exception {
    KeyStore keys = selfSigned(BackendNames.addonsServerName(namespace), dir.resolve("tls.p12"));
    this.certificate = pem(keys.getCertificate(ALIAS).getEncoded());
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, PASSWORD);
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .sslContext(GrpcSslContexts.configure(SslContextBuilder.forServer(keyManagers)).build())
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public Attributes transportReady(Attributes attributes) {
                    connections.incrementAndGet();
                    return attributes;
                  }
                })
            .addService(ServerInterceptors.intercept(new MoveCopy(), new TokenOfTheCall()))
            .addService(ServerInterceptors.intercept(new ReclaimNode(), new TokenOfTheCall()))
            .build()
            .start();
  }

  /** The pod as the operator's resolver finds it, with the certificate its cache holds. */
  DriverEndpoint endpoint() {
    return new DriverEndpoint(
        "local", "thinvol-local-node-a", "127.0.0.1", server.getPort(), certificate);
  }

  List<Received> received() {
    return List.copyOf(received);
  }

  /** The TLS connections the operator opened. */
  int connections() {
    return connections.get();
  }

  private final class MoveCopy extends MoveCopyGrpc.MoveCopyImplBase {
    @Override
    public void copyIn(CopyInRequest request, StreamObserver<CopyInResponse> observer) {
      answer("CopyIn", request, copied, observer);
    }

    @Override
    public void snapshot(SnapshotRequest request, StreamObserver<SnapshotResponse> observer) {
      answer("Snapshot", request, taken, observer);
    }

    @Override
    public void dropSnapshot(
        DropSnapshotRequest request, StreamObserver<DropSnapshotResponse> observer) {
      answer("DropSnapshot", request, dropped, observer);
    }

    @Override
    public void dropVolume(DropVolumeRequest request, StreamObserver<DropVolumeResponse> observer) {
      answer("DropVolume", request, droppedVolume, observer);
    }

    @Override
    public void space(SpaceRequest request, StreamObserver<SpaceResponse> observer) {
      answer("Space", request, space, observer);
    }
  }

  private final class ReclaimNode extends ReclaimSpaceNodeGrpc.ReclaimSpaceNodeImplBase {
    @Override
    public void nodeReclaimSpace(
        NodeReclaimSpaceRequest request, StreamObserver<NodeReclaimSpaceResponse> observer) {
      answer(
          "NodeReclaimSpace",
          request,
          NodeReclaimSpaceResponse.newBuilder()
              .setPreUsage(StorageConsumption.newBuilder().setUsageBytes(300))
              .setPostUsage(StorageConsumption.newBuilder().setUsageBytes(44))
              .build(),
          observer);
    }
  }

  private <T> void answer(String method, Object request, T response, StreamObserver<T> observer) {
    Deadline deadline = Context.current().getDeadline();
    received.add(
        new Received(
            method,
            request,
            TOKEN.get(),
            deadline == null
                ? null
                : Duration.ofMillis(deadline.timeRemaining(TimeUnit.MILLISECONDS))));
    Status status = failure;
    if (status != null) {
      observer.onError(status.asRuntimeException());
      return;
    }
    observer.onNext(response);
    observer.onCompleted();
  }

  /** Hands the call's authorization header to the service. */
  private static final class TokenOfTheCall implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return Contexts.interceptCall(
          Context.current().withValue(TOKEN, headers.get(AUTHORIZATION)), call, headers, next);
    }
  }

  /** A key and a one-day certificate for {@code name}, made by the JDK's keytool. */
  private static KeyStore selfSigned(String name, Path store) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process made =
        new ProcessBuilder(
                keytool.toString(),
                "-genkeypair",
                "-alias",
                ALIAS,
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "1",
                "-dname",
                "CN=" + name,
                "-ext",
                "SAN=dns:" + name,
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(PASSWORD))
            .redirectErrorStream(true)
            .start();
    String output = new String(made.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (made.waitFor() != 0) {
      throw new IOException("keytool made no test certificate: " + output);
    }
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, PASSWORD);
    }
    return keys;
  }

  /** The certificate as the operator's cache holds it from the Secret's tls.crt. */
  private static String pem(byte[] der) {
    return "-----BEGIN CERTIFICATE-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END CERTIFICATE-----\n";
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
