package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.DataLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A group snapshot that fails part-way leaves nothing behind: every filesystem of the group is
 * thawed, every member made so far is removed, and the same request can be retried.
 */
class GroupSnapshotRollbackTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  @DisplayName(
      "A member whose image cannot be copied after the others were: all thawed, no snapshot left")
  void failedCopyRollsBackAndThaws() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String a = stagedWithData(driver, "a");
      String c = stagedWithData(driver, "c");
      String broken = driver.create("broken", 16 * MIB, Capabilities.block());
      Path image = new DataLayout(driver.dataDir()).volumeImage(broken);
      Path saved = image.resolveSibling("saved.img");
      Files.move(image, saved);
      Files.createDirectory(image); // cp refuses to copy a directory: the third copy fails

      assertThat(
              message(
                  assertCode(
                      Status.Code.INTERNAL, () -> Groups.create(driver.csi(), "g", a, c, broken))))
          .contains(image.toString());
      assertAllThawedAndNothingLeft(driver, "a", "c");
      List<List<String>> commands = driver.gate().finished();
      assertThat(commands)
          .as("both filesystems were frozen together, then thawed")
          .containsSubsequence(
              List.of("FIFREEZE", driver.staging("a").toString()),
              List.of("FIFREEZE", driver.staging("c").toString()),
              List.of("FITHAW", driver.staging("c").toString()),
              List.of("FITHAW", driver.staging("a").toString()));

      Files.delete(image);
      Files.move(saved, image);
      assertThat(Groups.create(driver.csi(), "g", a, c, broken).getSnapshotsCount()).isEqualTo(3);
      driver.unstage(a, driver.staging("a"));
      driver.unstage(c, driver.staging("c"));
    }
  }

  @Test
  @DisplayName(
      "The group's file cannot be written after its members were published: the members are"
          + " removed")
  void unrecordableGroupRemovesItsMembers() throws Exception {
    try (DriverHarness driver = new DriverHarness()) {
      String a = stagedWithData(driver, "a");
      String b = driver.create("b", 16 * MIB, Capabilities.block());
      Path groups = driver.dataDir().resolve("groups");
      ProcessCommandRunner runner = new ProcessCommandRunner();
      runner.run(Duration.ofSeconds(10), List.of("chattr", "+i", groups.toString()));
      try {
        assertThat(
                message(
                    assertCode(Status.Code.INTERNAL, () -> Groups.create(driver.csi(), "g", a, b))))
            .contains("cannot record group snapshot 'g'");
      } finally {
        runner.run(Duration.ofSeconds(10), List.of("chattr", "-i", groups.toString()));
      }
      assertAllThawedAndNothingLeft(driver, "a");
      assertThat(Groups.create(driver.csi(), "g", a, b).getSnapshotsCount()).isEqualTo(2);
      driver.unstage(a, driver.staging("a"));
    }
  }

  @Test
  @DisplayName(
      "Copies that outlive the caller's deadline: DEADLINE_EXCEEDED, all thawed in time, nothing"
          + " left")
  void deadlineBoundsTheFreeze() throws Exception {
    try (DriverHarness driver = DriverHarness.gating("cp --sparse=always")) {
      String a = stagedWithData(driver, "a");
      String b = stagedWithData(driver, "b");
      driver.gate().hang(true);
      long start = System.nanoTime();
      assertCode(
          Status.Code.DEADLINE_EXCEEDED,
          () ->
              driver
                  .csi()
                  .groupController()
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .createVolumeGroupSnapshot(
                      CreateVolumeGroupSnapshotRequest.newBuilder()
                          .setName("slow")
                          .addSourceVolumeIds(a)
                          .addSourceVolumeIds(b)
                          .build()));
      assertAllThawedAndNothingLeft(driver, "a", "b");
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(15_000);
      driver.gate().hang(false);
      driver.unstage(a, driver.staging("a"));
      driver.unstage(b, driver.staging("b"));
    }
  }

  private static String stagedWithData(DriverHarness driver, String name) throws Exception {
    String id = driver.create(name, 32 * MIB, EXT4);
    driver.stage(id, driver.staging(name), EXT4);
    DataFiles.writeRandom(driver.staging(name).resolve("data.bin"), 4 * MIB);
    return id;
  }

  /** The filesystems staged as {@code stagedNames} take writes; no trace of the group is left. */
  private static void assertAllThawedAndNothingLeft(DriverHarness driver, String... stagedNames)
      throws Exception {
    for (String name : stagedNames) {
      Path staging = driver.staging(name);
      Process write =
          new ProcessBuilder(
                  "sh", "-c", "echo written > '" + staging.resolve("after.txt") + "' && sync")
              .start();
      assertThat(write.waitFor(10, TimeUnit.SECONDS)).as("%s is thawed", staging).isTrue();
    }
    assertThat(driver.dataDir().resolve("snapshots")).isEmptyDirectory();
    assertThat(driver.dataDir().resolve("groups")).isEmptyDirectory();
    assertThat(driver.dataDir().resolve("frozen")).isEmptyDirectory();
    assertThat(
            driver
                .csi()
                .controller()
                .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                .getEntriesList())
        .isEmpty();
  }
}
