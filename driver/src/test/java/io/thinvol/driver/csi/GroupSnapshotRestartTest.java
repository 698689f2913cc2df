package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.client.ContentSources.snapshotSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import csi.v1.CreateVolumeGroupSnapshotRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeGroupSnapshot;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.driver.ContainerNode;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Group snapshots survive restarts; what a crash interrupted is undone by the next start. */
class GroupSnapshotRestartTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  @Test
  @DisplayName(
      "After a container restart a group is found, its members restore, and a member still goes"
          + " only with its group; members of a group whose file a crash never wrote are removed")
  void groupsSurviveAContainerRestart() throws Exception {
    try (ContainerNode node = new ContainerNode()) {
      String a;
      String b;
      String data;
      VolumeGroupSnapshot kept;
      VolumeGroupSnapshot uncommitted;
      DriverProcess first = node.startDriver("node-a");
      try {
        CsiClient csi = first.csi();
        a = csi.createVolume("a", 32 * MIB, EXT4, null);
        b = csi.createVolume("b", 32 * MIB, Capabilities.block(), null);
        csi.stage(a, node.staging("a"), EXT4);
        data = DataFiles.writeRandom(node.staging("a").resolve("data.bin"), 4 * MIB);
        kept = Groups.create(csi, "kept", a, b);
        uncommitted = Groups.create(csi, "uncommitted", a, b);
      } finally {
        first.kill();
      }
      // what a crash after the members' publication and before the group's file leaves behind
      Files.delete(
          node.hostDataDir().resolve("groups").resolve(uncommitted.getGroupSnapshotId() + ".json"));

      try (DriverProcess second = node.startDriver("node-a")) {
        CsiClient csi = second.csi();
        assertThat(Groups.get(csi, kept.getGroupSnapshotId(), Groups.snapshotIds(kept)))
            .isEqualTo(kept);
        assertThat(
                csi.controller()
                    .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                    .getEntriesList())
            .extracting(e -> e.getSnapshot().getSnapshotId())
            .containsExactlyInAnyOrderElementsOf(Groups.snapshotIds(kept));
        for (String member : Groups.snapshotIds(uncommitted)) {
          assertThat(node.hostDataDir().resolve("snapshots").resolve(member)).doesNotExist();
        }
        assertCode(
            Status.Code.INVALID_ARGUMENT,
            () ->
                csi.controller()
                    .deleteSnapshot(
                        DeleteSnapshotRequest.newBuilder()
                            .setSnapshotId(Groups.memberOf(kept, a))
                            .build()));
        String restored =
            csi.createVolume("restored", 32 * MIB, EXT4, snapshotSource(Groups.memberOf(kept, a)));
        csi.stage(restored, node.staging("restored"), EXT4);
        assertThat(DataFiles.sha256(node.staging("restored").resolve("data.bin"))).isEqualTo(data);
        csi.unstage(restored, node.staging("restored"));
        csi.deleteVolume(restored);
        Groups.delete(csi, kept.getGroupSnapshotId(), Groups.snapshotIds(kept));
        csi.unstage(a, node.staging("a"));
        assertThat(node.hostDataDir().resolve("snapshots")).isEmptyDirectory();
      }
    }
  }

  @Test
  @DisplayName(
      "A driver killed while a group's filesystems are frozen: the next start thaws every one of"
          + " them and no member is left")
  void nextStartThawsEveryFilesystemOfTheGroup() throws Exception {
    Path root = Files.createTempDirectory("thinvol-group-freeze-");
    List<Process> blocked = new ArrayList<>();
    try {
      DriverProcess held = DriverProcess.start(root, "node-a", HeldCopyDriver.class.getName());
      CompletableFuture<Object> group;
      List<String> ids = new ArrayList<>();
      try {
        CsiClient csi = held.csi();
        for (String name : List.of("a", "b")) {
          String id = csi.createVolume(name, 32 * MIB, EXT4, null);
          csi.stage(id, root.resolve("staging").resolve(name), EXT4);
          DataFiles.writeRandom(root.resolve("staging").resolve(name).resolve("data.bin"), MIB);
          ids.add(id);
        }
        group =
            CompletableFuture.supplyAsync(
                () ->
                    csi.groupController()
                        .withDeadlineAfter(5, TimeUnit.MINUTES)
                        .createVolumeGroupSnapshot(
                            CreateVolumeGroupSnapshotRequest.newBuilder()
                                .setName("interrupted")
                                .addAllSourceVolumeIds(ids)
                                .build()));
        FrozenWrites.awaitFile(root.resolve("copy-held"));
        for (String name : List.of("a", "b")) {
          Process write =
              FrozenWrites.write(root.resolve("staging").resolve(name).resolve("during.txt"));
          blocked.add(write);
          assertThat(write.waitFor(2, TimeUnit.SECONDS))
              .as("a write to the frozen %s waits", name)
              .isFalse();
        }
      } finally {
        held.kill();
      }
      ExecutionException failed = catchThrowableOfType(group::get, ExecutionException.class);
      assertThat(((StatusRuntimeException) failed.getCause()).getStatus().getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);

      try (DriverProcess second = DriverProcess.start(root, "node-a")) {
        for (Process write : blocked) {
          assertThat(write.waitFor(30, TimeUnit.SECONDS)).as("the waiting write ends").isTrue();
        }
        assertThat(root.resolve("data/frozen")).isEmptyDirectory();
        assertThat(root.resolve("data/snapshots")).isEmptyDirectory();
        assertThat(root.resolve("data/groups")).isEmptyDirectory();
        for (int i = 0; i < ids.size(); i++) {
          second
              .csi()
              .unstage(ids.get(i), root.resolve("staging").resolve(List.of("a", "b").get(i)));
        }
      }
    } finally {
      for (String name : List.of("a", "b")) {
        new ProcessCommandRunner()
            .runAllowingFailure(
                Duration.ofSeconds(30),
                List.of(
                    "fsfreeze", "--unfreeze", root.resolve("staging").resolve(name).toString()));
      }
      for (Process write : blocked) {
        write.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      List<String> leaked = HostCleanup.release(root);
      Catalog.removeTree(root);
      assertThat(leaked).as("left behind").isEmpty();
    }
  }
}
