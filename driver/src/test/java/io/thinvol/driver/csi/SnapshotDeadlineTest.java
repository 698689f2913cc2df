package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.preflight.DataFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A copy that cannot finish within the caller's deadline is killed before it: the filesystem is
 * thawed, the partial copy removed, and the answer is DEADLINE_EXCEEDED.
 */
class SnapshotDeadlineTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  void copyThatOutlivesTheDeadlineIsAbortedAndThawed() throws Exception {
    try (DriverHarness driver = DriverHarness.gating("cp --sparse=always")) {
      driver.gate().hang(true); // the copy never ends by itself
      String id = driver.create("slow", 64 * MIB, EXT4);
      Path staging = driver.staging("slow");
      driver.stage(id, staging, EXT4);
      String data = DataFiles.writeRandom(staging.resolve("data.bin"), 4 * MIB);

      long start = System.nanoTime();
      assertCode(
          Status.Code.DEADLINE_EXCEEDED,
          () ->
              driver
                  .csi()
                  .controller()
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .createSnapshot(
                      CreateSnapshotRequest.newBuilder()
                          .setName("too-slow")
                          .setSourceVolumeId(id)
                          .build()));
      Process write =
          new ProcessBuilder("sh", "-c", "echo written > '" + staging.resolve("after.txt") + "'")
              .start();
      assertThat(write.waitFor(10, TimeUnit.SECONDS)).as("the filesystem is thawed").isTrue();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(15_000);
      assertThat(driver.gate().finished())
          .contains(List.of("FIFREEZE", staging.toString()))
          .contains(List.of("FITHAW", staging.toString()));
      assertThat(driver.dataDir().resolve("snapshots")).isEmptyDirectory();
      assertThat(driver.dataDir().resolve("frozen")).isEmptyDirectory();
      assertThat(
              driver
                  .csi()
                  .controller()
                  .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                  .getEntriesList())
          .isEmpty();

      driver.gate().hang(false);
      driver
          .csi()
          .controller()
          .createSnapshot(
              CreateSnapshotRequest.newBuilder().setName("in-time").setSourceVolumeId(id).build());
      assertThat(DataFiles.sha256(staging.resolve("data.bin"))).isEqualTo(data);
      driver.unstage(id, staging);
    }
  }
}
