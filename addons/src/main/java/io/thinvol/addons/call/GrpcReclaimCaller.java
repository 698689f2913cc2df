package io.thinvol.addons.call;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import csiaddons.reclaimspace.ControllerReclaimSpaceRequest;
import csiaddons.reclaimspace.NodeReclaimSpaceRequest;
import csiaddons.reclaimspace.ReclaimSpaceControllerGrpc;
import csiaddons.reclaimspace.ReclaimSpaceNodeGrpc;
import csiaddons.reclaimspace.StorageConsumption;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.api.BackendNames;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Calls driver pods over TLS with the operator's projected addons token ({@link ProjectedToken}).
 * The driver's certificate is verified against the one in the backend's Secret (the operator made
 * it), not skipped; one channel per pod and certificate, closed after a while unused.
 */
public final class GrpcReclaimCaller implements ReclaimCaller, AutoCloseable {

  private static final Duration IDLE = Duration.ofMinutes(5);

  /** A renewed certificate is picked up within this; calls in between read no Secret. */
  private static final Duration CERTIFICATE_TTL = Duration.ofMinutes(1);

  private final KubernetesClient client;
  private final String namespace;
  private final BearerToken token;
  private final Map<ChannelKey, ManagedChannel> channels = new ConcurrentHashMap<>();

  private record ChannelKey(DriverEndpoint endpoint, String certificate) {}

  private record Certificate(String pem, long readAtNanos) {}

  private final Map<String, Certificate> certificates = new ConcurrentHashMap<>();

  public GrpcReclaimCaller(KubernetesClient client, String namespace, Supplier<String> token) {
    this.client = client;
    this.namespace = namespace;
    this.token = new BearerToken(token);
  }

  @Override
  public CompletableFuture<Usage> call(
      DriverEndpoint endpoint, ReclaimService service, String volumeId, Duration timeout) {
    ManagedChannel channel;
    try {
      token.check();
    } catch (TokenUnreadable e) {
      return CompletableFuture.failedFuture(BearerToken.unreadable(e).asRuntimeException());
    }
    try {
      channel = channel(endpoint);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          Status.UNAVAILABLE.withDescription(e.getMessage()).asRuntimeException());
    }
    long millis = timeout.toMillis();
    return switch (service) {
      case NODE ->
          usage(
              ReclaimSpaceNodeGrpc.newFutureStub(channel)
                  .withCallCredentials(token)
                  .withDeadlineAfter(millis, TimeUnit.MILLISECONDS)
                  .nodeReclaimSpace(
                      NodeReclaimSpaceRequest.newBuilder().setVolumeId(volumeId).build()),
              r -> r.hasPreUsage() ? r.getPreUsage() : null,
              r -> r.hasPostUsage() ? r.getPostUsage() : null);
      case CONTROLLER ->
          usage(
              ReclaimSpaceControllerGrpc.newFutureStub(channel)
                  .withCallCredentials(token)
                  .withDeadlineAfter(millis, TimeUnit.MILLISECONDS)
                  .controllerReclaimSpace(
                      ControllerReclaimSpaceRequest.newBuilder().setVolumeId(volumeId).build()),
              r -> r.hasPreUsage() ? r.getPreUsage() : null,
              r -> r.hasPostUsage() ? r.getPostUsage() : null);
    };
  }

  private static <R> CompletableFuture<Usage> usage(
      ListenableFuture<R> call,
      Function<R, StorageConsumption> pre,
      Function<R, StorageConsumption> post) {
    CompletableFuture<Usage> result = new CompletableFuture<>();
    Futures.addCallback(
        call,
        new FutureCallback<R>() {
          @Override
          public void onSuccess(R response) {
            result.complete(new Usage(bytes(pre.apply(response)), bytes(post.apply(response))));
          }

          @Override
          public void onFailure(Throwable t) {
            result.completeExceptionally(t);
          }
        },
        MoreExecutors.directExecutor());
    return result;
  }

  private static OptionalLong bytes(StorageConsumption consumption) {
    return consumption == null
        ? OptionalLong.empty()
        : OptionalLong.of(consumption.getUsageBytes());
  }

  private ManagedChannel channel(DriverEndpoint endpoint) {
    String certificate = certificate(endpoint.backendName());
    ChannelKey key = new ChannelKey(endpoint, certificate);
    // A pod that moved to another IP or a renewed certificate leaves its old channel behind.
    channels
        .entrySet()
        .removeIf(
            e -> {
              boolean stale =
                  e.getKey().endpoint().podName().equals(endpoint.podName())
                      && !e.getKey().equals(key);
              if (stale) {
                e.getValue().shutdown();
              }
              return stale;
            });
    return channels.computeIfAbsent(key, k -> open(endpoint, certificate));
  }

  private ManagedChannel open(DriverEndpoint endpoint, String certificate) {
    try {
      return NettyChannelBuilder.forAddress(endpoint.host(), endpoint.port())
          .sslContext(
              GrpcSslContexts.forClient()
                  .trustManager(
                      new ByteArrayInputStream(certificate.getBytes(StandardCharsets.US_ASCII)))
                  .build())
          .overrideAuthority(BackendNames.addonsServerName(endpoint.backendName(), namespace))
          .idleTimeout(IDLE.toMinutes(), TimeUnit.MINUTES)
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "the certificate in Secret "
              + BackendNames.addonsTlsSecret(endpoint.backendName())
              + " cannot be used: "
              + e.getMessage(),
          e);
    }
  }

  /** The PEM certificate the backend's driver pods present, read at most once a minute. */
  private String certificate(String backend) {
    long now = System.nanoTime();
    Certificate cached = certificates.get(backend);
    if (cached != null && now - cached.readAtNanos() < CERTIFICATE_TTL.toNanos()) {
      return cached.pem();
    }
    String pem = readCertificate(backend);
    certificates.put(backend, new Certificate(pem, now));
    return pem;
  }

  private String readCertificate(String backend) {
    String name = BackendNames.addonsTlsSecret(backend);
    Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
    if (secret == null) {
      throw new IllegalStateException(
          "Secret " + namespace + "/" + name + " with the driver's certificate does not exist");
    }
    return Optional.ofNullable(secret.getData())
        .map(d -> d.get("tls.crt"))
        .map(b64 -> new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII))
        .or(() -> Optional.ofNullable(secret.getStringData()).map(d -> d.get("tls.crt")))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Secret " + namespace + "/" + name + " holds no tls.crt"));
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
