package io.thinvol.driver.bench;

import csi.v1.ProbeRequest;
import io.thinvol.driver.client.CsiClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * For bench/node-start-bench.sh: waits for a driver that is starting to answer {@code Probe} on its
 * CSI socket and prints when it first did, in seconds since the epoch (with nanoseconds), as the
 * kubelet's registrar and livenessprobe would see it. Started before the driver, it asks every 5 ms
 * once the socket exists, each time on a new connection (a channel's reconnect backoff would add up
 * to a second).
 *
 * <p>Usage: {@code FirstProbe SOCKET TIMEOUT_SECONDS}
 */
public final class FirstProbe {

  private FirstProbe() {}

  public static void main(String[] args) throws Exception {
    Path socket = Path.of(args[0]);
    long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[1])).toNanos();
    // Load the client's classes before the driver starts, not while it is timed.
    try (CsiClient warm = new CsiClient(socket.resolveSibling("not-a-socket"))) {
      warm.identity().withDeadlineAfter(1, TimeUnit.MILLISECONDS);
    }
    while (System.nanoTime() < deadline) {
      if (Files.exists(socket)) {
        try (CsiClient csi = new CsiClient(socket)) {
          boolean ready =
              csi.identity()
                  .withDeadlineAfter(500, TimeUnit.MILLISECONDS)
                  .probe(ProbeRequest.getDefaultInstance())
                  .getReady()
                  .getValue();
          if (ready) {
            Instant now = Instant.now();
            System.out.printf("%d.%09d%n", now.getEpochSecond(), now.getNano());
            return;
          }
        } catch (RuntimeException notYet) {
          // not serving yet
        }
      }
      Thread.sleep(5);
    }
    System.err.println("no Probe answered on " + socket);
    System.exit(1);
  }
}
