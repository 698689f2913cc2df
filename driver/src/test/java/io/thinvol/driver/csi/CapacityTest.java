package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateSnapshotRequest;
import csi.v1.GetCapacityRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.GrpcAssertions;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.ContentSources;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Promised space and the volume limit hold under concurrent CreateVolumes (the provisioner runs
 * many workers), on a data dir whose free bytes are few and real: a 64 MiB filesystem.
 */
class CapacityTest {

  private static final long MIB = 1L << 20;
  private static final int CALLS = 64;
  // Creating a volume writes a directory and meta.json (a few KiB) to the data dir: when the
  // gauge measures the disk again during a test, capacity moves by that much.
  private static final long METADATA_SLACK = MIB;

  private DriverHarness driver;
  private final ExecutorService pool = Executors.newFixedThreadPool(CALLS);

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void concurrentCreatesNeverPromiseMoreThanTheDisk() throws Exception {
    driver = DriverHarness.onSmallDataDir(64 * MIB, 1000);
    long before = capacity();
    long size = 4 * MIB;
    assertThat(before).as("room for some volumes, not all").isBetween(size, (CALLS - 1) * size);

    List<Object> results = createTogether(size);

    long created = results.stream().filter(String.class::isInstance).count();
    assertThat(results)
        .allMatch(r -> r instanceof String || r == Status.Code.RESOURCE_EXHAUSTED)
        .contains(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(created).isPositive();
    assertThat(created * size).as("bytes promised").isLessThanOrEqualTo(before);
    long after = capacity();
    assertThat(after)
        .as("what is left: the promises made, and no reservation of a refused call kept")
        .isBetween(before - created * size - METADATA_SLACK, before - created * size)
        .isLessThan(size + METADATA_SLACK);
    assertThat(volumeDirs()).isEqualTo(created);
  }

  @Test
  void concurrentCreatesNeverExceedTheVolumeLimit() throws Exception {
    driver = DriverHarness.onSmallDataDir(64 * MIB, 5);
    List<Object> results = createTogether(MIB);
    assertThat(results.stream().filter(String.class::isInstance).count()).isEqualTo(5);
    assertThat(results.stream().filter(Status.Code.RESOURCE_EXHAUSTED::equals).count())
        .isEqualTo(CALLS - 5);
    assertThat(volumeDirs()).isEqualTo(5);
  }

  @Test
  void aFailedCreateGivesItsReservationBack() throws Exception {
    driver = DriverHarness.onSmallDataDir(64 * MIB, 1000);
    String origin = driver.create("origin", 8 * MIB, Capabilities.block());
    Files.delete(driver.dataDir().resolve("volumes").resolve(origin).resolve("disk.img"));
    long before = capacity();

    for (int i = 0; i < 3; i++) {
      String name = "clone-" + i;
      GrpcAssertions.assertCode(
          Status.Code.INTERNAL,
          () ->
              driver
                  .csi()
                  .createVolume(
                      name, 8 * MIB, Capabilities.block(), ContentSources.volumeSource(origin)));
    }

    assertThat(capacity()).isEqualTo(before);
    assertThat(volumeDirs()).isEqualTo(1);
  }

  @Test
  void snapshotsTakeTheirBytesFromCapacityAndNeverPromisedSpace() throws Exception {
    driver = DriverHarness.onSmallDataDir(64 * MIB, 1000);
    long room = capacity();
    String volume = driver.create("written", 16 * MIB, Capabilities.block());
    writeInto(volume, 12 * MIB);

    long before = capacity();
    snapshot("first", volume);
    long after = capacity();
    assertThat(before - after).as("a snapshot's real bytes").isBetween(12 * MIB, 13 * MIB);

    // At ratio 1.0 every free byte is promised once the rest goes to a volume: a second copy of
    // 12 MiB would fit on the disk, but only by taking space promised to "big".
    long left = capacity();
    driver.create("big", (left / MIB) * MIB, Capabilities.block());
    assertThat(driver.dataFilesystem().mountPoint().toFile().getUsableSpace())
        .as("the disk itself has room")
        .isGreaterThan(12 * MIB);
    StatusRuntimeException refused =
        GrpcAssertions.assertCode(Status.Code.RESOURCE_EXHAUSTED, () -> snapshot("second", volume));
    assertThat(refused.getStatus().getDescription()).contains("snapshot");
    assertThat(room).isGreaterThan(left);
  }

  private void snapshot(String name, String volume) {
    driver
        .csi()
        .controller()
        .createSnapshot(
            CreateSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(volume).build());
  }

  private void writeInto(String volume, long bytes) throws Exception {
    Path image = driver.dataDir().resolve("volumes").resolve(volume).resolve("disk.img");
    byte[] chunk = new byte[(int) MIB];
    java.util.Arrays.fill(chunk, (byte) 7);
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      for (long at = 0; at < bytes; at += MIB) {
        file.write(chunk);
      }
      file.getFD().sync();
    }
  }

  private List<Object> createTogether(long size) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> futures = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      String name = "storm-" + i;
      Callable<Object> call =
          () -> {
            go.await();
            try {
              return driver.create(name, size, Capabilities.block());
            } catch (StatusRuntimeException e) {
              return e.getStatus().getCode();
            }
          };
      futures.add(pool.submit(call));
    }
    go.countDown();
    List<Object> results = new ArrayList<>();
    for (Future<Object> future : futures) {
      results.add(future.get());
    }
    return results;
  }

  private long capacity() {
    return driver
        .csi()
        .controller()
        .getCapacity(GetCapacityRequest.getDefaultInstance())
        .getAvailableCapacity();
  }

  private long volumeDirs() throws Exception {
    try (var dirs = Files.list(driver.dataDir().resolve("volumes"))) {
      return dirs.count();
    }
  }
}
