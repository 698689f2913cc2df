package io.thinvol.driver.cli;

import csi.v1.ProbeRequest;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.server.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code thinvol driver probe}: asks the driver on a CSI socket whether it is ready, as the
 * registrar and the livenessprobe sidecar do, from inside the node pod ({@code kubectl exec}) or on
 * the node. The image build runs it against a driver started to record the classes a start loads
 * (packaging/image/class-data.sh).
 */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description = {
      "Ask the driver serving a CSI socket whether it is ready (CSI Probe), waiting for it to"
          + " serve. Exit 0 when it answers ready, 1 otherwise."
    })
public final class ProbeCommand implements Callable<Integer> {

  private static final Duration RETRY = Duration.ofMillis(50);

  @Mixin CsiEndpointOption csiEndpoint;

  @Option(
      names = "--timeout",
      defaultValue = "10",
      description = "Seconds to wait for the socket to answer. Default: ${DEFAULT-VALUE}")
  long timeoutSeconds;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Path socket = UnixSockets.path(csiEndpoint.value);
    long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
    String why = "no socket at " + socket;
    do {
      if (Files.exists(socket)) {
        try (CsiClient csi = new CsiClient(socket)) {
          boolean ready =
              csi.identity()
                  .withDeadlineAfter(
                      Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                  .probe(ProbeRequest.getDefaultInstance())
                  .getReady()
                  .getValue();
          if (ready) {
            spec.commandLine().getOut().println("ready");
            return 0;
          }
          why = "the driver answered not ready";
        } catch (StatusRuntimeException e) {
          why = e.getStatus().getCode() + ": " + e.getStatus().getDescription();
        }
      }
      Thread.sleep(RETRY.toMillis());
    } while (System.nanoTime() < deadline);
    spec.commandLine()
        .getErr()
        .printf(
            "thinvol: not ready after %d s on %s: %s%n", timeoutSeconds, csiEndpoint.value, why);
    return 1;
  }
}
