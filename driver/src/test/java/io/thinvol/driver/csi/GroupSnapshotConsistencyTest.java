package io.thinvol.driver.csi;

import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csi.v1.VolumeGroupSnapshot;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.RecordWriter;
import io.thinvol.driver.XfsDataDir;
import io.thinvol.driver.client.Capabilities;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A group snapshot is one point in time of the group's write stream (the spec's write-order
 * consistency): one process appends record n to volume A, fsyncs it, then appends it to volume B,
 * while group snapshots are taken again and again. Restored, no group's B ever holds a record its A
 * lacks, and A is at most the one record ahead that the writer can be between its two writes.
 * Snapshotting the volumes one after the other instead fails this within a few groups.
 */
class GroupSnapshotConsistencyTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private static final int GROUPS = 8;

  @Test
  @DisplayName("Full copies (ext4 data dir): B never holds a record A lacks")
  void sparseCopiesAreOnePointInTime() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      checkOrdering(driver, "sparse copies");
    }
  }

  @Test
  @DisplayName("Reflinks (xfs data dir): B never holds a record A lacks")
  void reflinksAreOnePointInTime() throws Exception {
    try (XfsDataDir xfs = XfsDataDir.create()) {
      try (DriverHarness driver = DriverHarness.on(xfs.path(), "fstrim")) {
        checkOrdering(driver, "reflinks");
      }
      assertThat(xfs.leaked()).isEmpty();
    }
  }

  private static void checkOrdering(DriverHarness driver, String copies) throws Exception {
    String a = driver.create("a", 64 * MIB, EXT4);
    String b = driver.create("b", 64 * MIB, EXT4);
    driver.stage(a, driver.staging("a"), EXT4);
    driver.stage(b, driver.staging("b"), EXT4);
    List<VolumeGroupSnapshot> groups = new ArrayList<>();
    long longestCallMs = 0;
    long[] written;
    try (RecordWriter writer =
        RecordWriter.start(driver.staging("a"), driver.staging("b"), driver.root())) {
      writer.awaitRecords(50);
      for (int i = 0; i < GROUPS; i++) {
        long start = System.nanoTime();
        groups.add(Groups.create(driver.csi(), "group-" + i, a, b));
        longestCallMs =
            Math.max(longestCallMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        writer.awaitRecords(writer.recordsOnB() + 50); // the next group cuts elsewhere
      }
      written = writer.stop();
    }

    List<long[]> restored = new ArrayList<>();
    for (int i = 0; i < GROUPS; i++) {
      VolumeGroupSnapshot group = groups.get(i);
      long onA = restoredRecords(driver, group, a, "a-" + i);
      long onB = restoredRecords(driver, group, b, "b-" + i);
      restored.add(new long[] {onA, onB});
      Groups.delete(driver.csi(), group.getGroupSnapshotId(), Groups.snapshotIds(group));
    }
    System.out.printf(
        "group snapshots with %s: %d groups checked, %d record pairs written, records restored"
            + " (A, B) per group: %s; longest CreateVolumeGroupSnapshot %d ms, longest stall of"
            + " the writer's pair of writes %d ms%n",
        copies,
        GROUPS,
        written[0],
        restored.stream().map(r -> "(" + r[0] + ", " + r[1] + ")").toList(),
        longestCallMs,
        written[1]);
    for (long[] counts : restored) {
      assertThat(counts[1]).as("B never holds a record A lacks").isLessThanOrEqualTo(counts[0]);
      assertThat(counts[0] - counts[1]).as("A is at most one write ahead").isLessThanOrEqualTo(1);
      assertThat(counts[1]).as("the group caught the writer at work").isPositive();
    }
    assertThat(restored.stream().mapToLong(r -> r[1]).distinct().count())
        .as("each group cut the stream at another point")
        .isEqualTo(GROUPS);
    driver.unstage(a, driver.staging("a"));
    driver.unstage(b, driver.staging("b"));
  }

  /** Restores the member of {@code source} into a new volume and counts its records. */
  private static long restoredRecords(
      DriverHarness driver, VolumeGroupSnapshot group, String source, String name) {
    String restored =
        driver
            .csi()
            .createVolume(name, 64 * MIB, EXT4, snapshotSource(Groups.memberOf(group, source)));
    Path staging = driver.staging(name);
    driver.stage(restored, staging, EXT4);
    try {
      return RecordWriter.contiguousRecords(staging.resolve(RecordWriter.FILE));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      driver.unstage(restored, staging);
      driver.csi().deleteVolume(restored);
    }
  }
}
