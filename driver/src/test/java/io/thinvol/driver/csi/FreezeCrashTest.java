package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import csi.v1.CreateSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.VolumeCapability;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.FrozenWrites;
import io.thinvol.driver.cli.HeldCopyDriver;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.HostCleanup;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.driver.store.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A driver killed (SIGKILL) while a snapshot's copy holds the source's filesystem frozen: the
 * freeze outlives the process, and the next start of the driver thaws it.
 */
class FreezeCrashTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");
  private Path root;
  private Process blockedWrite;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("thinvol-freeze-");
  }

  @AfterEach
  void cleanUp() throws Exception {
    // If the test failed with the filesystem still frozen, nothing below could unmount it.
    new ProcessCommandRunner()
        .runAllowingFailure(
            Duration.ofSeconds(30), List.of("fsfreeze", "--unfreeze", staging().toString()));
    if (blockedWrite != null) {
      blockedWrite.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    List<String> leaked = HostCleanup.release(root);
    Catalog.removeTree(root);
    assertThat(leaked).as("left behind").isEmpty();
  }

  @Test
  void nextStartThawsWhatAKilledDriverFroze() throws Exception {
    String id;
    DriverProcess held = DriverProcess.start(root, "node-a", HeldCopyDriver.class.getName());
    CompletableFuture<Object> snapshot;
    try {
      CsiClient csi = held.csi();
      id = csi.createVolume("frozen", 64 * MIB, EXT4, null);
      csi.stage(id, staging(), EXT4);
      String data = DataFiles.writeRandom(staging().resolve("data.bin"), 8 * MIB);
      snapshot =
          CompletableFuture.supplyAsync(
              () ->
                  csi.controller()
                      .withDeadlineAfter(5, TimeUnit.MINUTES)
                      .createSnapshot(
                          CreateSnapshotRequest.newBuilder()
                              .setName("interrupted")
                              .setSourceVolumeId(id)
                              .build()));
      FrozenWrites.awaitFile(root.resolve("copy-held"));
      assertThat(DataFiles.sha256(staging().resolve("data.bin"))).isEqualTo(data); // reads work
      blockedWrite = FrozenWrites.write(staging().resolve("during-freeze.txt"));
      assertThat(blockedWrite.waitFor(2, TimeUnit.SECONDS))
          .as("a write to the frozen filesystem waits")
          .isFalse();
    } finally {
      held.kill();
    }
    ExecutionException failed = catchThrowableOfType(snapshot::get, ExecutionException.class);
    assertThat(((StatusRuntimeException) failed.getCause()).getStatus().getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(blockedWrite.waitFor(1, TimeUnit.SECONDS))
        .as("the freeze outlives the killed driver")
        .isFalse();

    try (DriverProcess second = DriverProcess.start(root, "node-a")) {
      assertThat(blockedWrite.waitFor(30, TimeUnit.SECONDS)).as("the waiting write ends").isTrue();
      assertThat(blockedWrite.exitValue()).isZero();
      Process after = FrozenWrites.write(staging().resolve("after-restart.txt"));
      assertThat(after.waitFor(30, TimeUnit.SECONDS)).as("a new write ends").isTrue();
      assertThat(after.exitValue()).isZero();
      assertThat(root.resolve("data/frozen")).isEmptyDirectory();
      assertThat(root.resolve("data/snapshots")).isEmptyDirectory(); // the partial copy is gone
      assertThat(
              second
                  .csi()
                  .controller()
                  .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                  .getEntriesList())
          .isEmpty();
      second.csi().unstage(id, staging());
      second.csi().deleteVolume(id);
    }
  }

  private Path staging() {
    return root.resolve("staging/frozen");
  }
}
