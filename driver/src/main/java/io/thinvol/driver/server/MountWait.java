package io.thinvol.driver.server;

import io.grpc.HandlerRegistry;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.thinvol.driver.config.DriverConfig;
import io.thinvol.driver.core.DataDirUsability;
import io.thinvol.driver.csi.IdentityService;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A driver whose dedicated data-dir mount is not there yet waits for it before it opens the data
 * dir (no lock file, no catalog directories on the root filesystem), and meanwhile answers on its
 * CSI socket: Identity (so the livenessprobe sidecar sees a live plugin and the kubelet does not
 * restart it) and UNAVAILABLE with the reason for everything else. The mount is seen as soon as it
 * appears: the data dir's hostPath is mounted with HostToContainer propagation.
 */
final class MountWait {

  private static final Logger log = LoggerFactory.getLogger(MountWait.class);
  private static final Duration LOG_EVERY = Duration.ofMinutes(1);

  private MountWait() {}

  static void untilMounted(DriverConfig config, DataDirUsability usability, Duration poll)
      throws IOException {
    if (!usability.awaitsMount()) {
      return;
    }
    try (GrpcServer waiting =
        GrpcServer.onSocket(
            UnixSockets.path(config.csiEndpoint()),
            List.of(new IdentityService(config)),
            List.of(),
            new Unavailable(usability),
            null)) {
      long nextLog = 0;
      while (usability.awaitsMount()) {
        if (System.nanoTime() - nextLog >= 0) {
          log.warn("waiting for the data dir's mount: {}", usability.problem().message());
          nextLog = System.nanoTime() + LOG_EVERY.toNanos();
        }
        Thread.sleep(poll.toMillis());
      }
      log.info("a filesystem is mounted at the data dir {}; opening it", config.dataDir());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the data dir's mount", e);
    }
  }

  /** Every method but Identity's: UNAVAILABLE, saying why. */
  private static final class Unavailable extends HandlerRegistry {

    private static final MethodDescriptor.Marshaller<InputStream> RAW =
        new MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(InputStream value) {
            return value;
          }

          @Override
          public InputStream parse(InputStream stream) {
            return stream;
          }
        };

    private final DataDirUsability usability;

    Unavailable(DataDirUsability usability) {
      this.usability = usability;
    }

    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      MethodDescriptor<InputStream, InputStream> method =
          MethodDescriptor.newBuilder(RAW, RAW)
              .setFullMethodName(methodName)
              .setType(MethodDescriptor.MethodType.UNKNOWN)
              .build();
      return ServerMethodDefinition.create(
          method,
          (ServerCall<InputStream, InputStream> call, Metadata headers) -> {
            DataDirUsability.Problem problem = usability.problem();
            call.close(
                Status.UNAVAILABLE.withDescription(
                    problem == null ? "the driver is opening its data dir" : problem.message()),
                new Metadata());
            return new ServerCall.Listener<>() {};
          });
    }
  }
}
