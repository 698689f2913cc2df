package io.thinvol.driver.csi;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import csiaddons.identity.Capability;
import csiaddons.identity.GetCapabilitiesRequest;
import csiaddons.replication.ControllerGrpc;
import csiaddons.replication.DemoteVolumeRequest;
import csiaddons.replication.DisableVolumeReplicationRequest;
import csiaddons.replication.EnableVolumeReplicationRequest;
import csiaddons.replication.GetVolumeReplicationInfoRequest;
import csiaddons.replication.PromoteVolumeRequest;
import csiaddons.replication.ReplicationSource;
import csiaddons.replication.ResyncVolumeRequest;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CSI-Addons replication.Controller service on a real driver: the spec's error codes in its
 * order (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ABORTED), idempotent calls, and the
 * roles it sets: a secondary is never staged nor published, across a restart too.
 */
class ReplicationRolesTest {

  private static final long MIB = 1L << 20;
  private static final String REPLICATION = "7c1f0d3e-0a4b-4c55-9e61-2f7a8b9c0d1e";
  private static final VolumeCapability MOUNT = Capabilities.mount("ext4");

  private DriverHarness driver;

  @BeforeEach
  void start() throws IOException {
    driver = new DriverHarness();
  }

  @AfterEach
  void stop() throws IOException {
    driver.gate().hang(false);
    driver.close();
  }

  private ControllerGrpc.ControllerBlockingStub replication() {
    return driver.addons().replication();
  }

  private void enable(String volumeId) {
    replication()
        .enableVolumeReplication(
            EnableVolumeReplicationRequest.newBuilder()
                .setVolumeId(volumeId)
                .setReplicationId(REPLICATION)
                .build());
  }

  private void demote(String volumeId, boolean force) {
    replication()
        .demoteVolume(
            DemoteVolumeRequest.newBuilder().setVolumeId(volumeId).setForce(force).build());
  }

  private void promote(String volumeId, boolean force) {
    replication()
        .promoteVolume(
            PromoteVolumeRequest.newBuilder().setVolumeId(volumeId).setForce(force).build());
  }

  @Test
  @DisplayName("The identity advertises volume replication")
  void advertised() {
    assertThat(
            driver
                .addons()
                .identity()
                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .contains(
            Capability.newBuilder()
                .setVolumeReplication(
                    Capability.VolumeReplication.newBuilder()
                        .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION))
                .build());
  }

  @Test
  @DisplayName("Fields first, then the volume, then its role: the spec's codes in its order")
  void errorCodesInOrder() {
    String id = driver.create("roles", 64 * MIB, MOUNT);
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            replication()
                .enableVolumeReplication(
                    EnableVolumeReplicationRequest.newBuilder().setReplicationId("r").build()));
    assertCode(
        Status.Code.INVALID_ARGUMENT,
        () ->
            replication()
                .enableVolumeReplication(
                    EnableVolumeReplicationRequest.newBuilder().setVolumeId(id).build()));
    assertCode(
        Status.Code.NOT_FOUND,
        () ->
            replication()
                .enableVolumeReplication(
                    EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId("vol-00000000-0000-0000-0000-000000000000")
                        .setReplicationId(REPLICATION)
                        .build()));
    assertCode(
        Status.Code.UNIMPLEMENTED,
        () ->
            replication()
                .enableVolumeReplication(
                    EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(id)
                        .setReplicationId(REPLICATION)
                        .setReplicationSource(
                            ReplicationSource.newBuilder()
                                .setVolumegroup(
                                    ReplicationSource.VolumeGroupSource.newBuilder()
                                        .setVolumeGroupId("group")))
                        .build()));
    // not replicated: every role change but Enable is refused, Disable is done already
    assertCode(Status.Code.FAILED_PRECONDITION, () -> promote(id, false));
    assertCode(Status.Code.FAILED_PRECONDITION, () -> demote(id, false));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () -> replication().resyncVolume(ResyncVolumeRequest.newBuilder().setVolumeId(id).build()));
    assertCode(Status.Code.FAILED_PRECONDITION, () -> info(id));
    replication()
        .disableVolumeReplication(
            DisableVolumeReplicationRequest.newBuilder().setVolumeId(id).build());

    enable(id);
    enable(id); // idempotent
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            replication()
                .enableVolumeReplication(
                    EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(id)
                        .setReplicationId("another")
                        .build()));
    promote(id, false); // a primary already
    assertCode(Status.Code.NOT_FOUND, () -> info(id)); // no sync yet
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () -> replication().resyncVolume(ResyncVolumeRequest.newBuilder().setVolumeId(id).build()));
  }

  @Test
  @DisplayName(
      "A demoted volume is never staged nor published, after a restart too, until promoted")
  void secondaryIsNeverStaged() throws IOException {
    String id = driver.create("demoted", 64 * MIB, MOUNT);
    enable(id);
    driver.stage(id, driver.staging("demoted"), MOUNT);
    assertThat(message(assertCode(Status.Code.FAILED_PRECONDITION, () -> demote(id, false))))
        .contains("staged");
    demote(id, true);
    demote(id, false); // idempotent once demoted
    driver.unstage(id, driver.staging("demoted"));

    String refused =
        message(
            assertCode(
                Status.Code.FAILED_PRECONDITION,
                () -> driver.stage(id, driver.staging("demoted"), MOUNT)));
    assertThat(refused).contains("stale copy").contains(REPLICATION);
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            driver.publish(id, driver.staging("demoted"), driver.target("demoted"), MOUNT, false));
    assertThat(Files.readString(driver.dataDir().resolve("volumes/" + id + "/meta.json")))
        .contains("SECONDARY");

    driver.stop();
    driver.start();
    assertCode(
        Status.Code.FAILED_PRECONDITION, () -> driver.stage(id, driver.staging("demoted"), MOUNT));
    assertThat(
            replication()
                .resyncVolume(ResyncVolumeRequest.newBuilder().setVolumeId(id).build())
                .getReady())
        .as("a stale copy is not ready to use: it is marked to be replaced")
        .isFalse();
    assertCode(Status.Code.FAILED_PRECONDITION, () -> promote(id, false));
    assertCode(
        Status.Code.FAILED_PRECONDITION,
        () ->
            replication()
                .disableVolumeReplication(
                    DisableVolumeReplicationRequest.newBuilder().setVolumeId(id).build()));

    promote(id, true);
    driver.stage(id, driver.staging("demoted"), MOUNT);
    driver.unstage(id, driver.staging("demoted"));
  }

  @Test
  @DisplayName("A role change for a volume with a call in flight is ABORTED")
  void abortedWhileBusy() throws Exception {
    String id = driver.create("busy", 64 * MIB, MOUNT);
    enable(id);
    driver.stage(id, driver.staging("busy"), MOUNT);
    driver.gate().hold();
    CompletableFuture<?> trim =
        CompletableFuture.supplyAsync(
            () -> driver.addons().reclaimOnNode(id, driver.staging("busy")));
    driver.gate().awaitArrival();

    assertCode(Status.Code.ABORTED, () -> demote(id, true));
    assertCode(Status.Code.ABORTED, () -> promote(id, false));
    assertCode(
        Status.Code.ABORTED,
        () ->
            replication()
                .disableVolumeReplication(
                    DisableVolumeReplicationRequest.newBuilder().setVolumeId(id).build()));

    driver.gate().release();
    trim.get(60, TimeUnit.SECONDS);
    demote(id, true);
    driver.unstage(id, driver.staging("busy"));
  }

  private void info(String id) {
    replication()
        .getVolumeReplicationInfo(
            GetVolumeReplicationInfoRequest.newBuilder().setVolumeId(id).build());
  }
}
