package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.call.DriverCalls;
import io.thinvol.addons.call.GrpcMoveCopier;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.ReplicaState;
import io.thinvol.api.v1alpha1.ReplicationState;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.driver.preflight.DataFiles;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.StrictApiServer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replicated claim through a node's loss and return, end to end on this host: the operator's
 * VolumeReplication reconciler calls the real drivers of both nodes through the gRPC MoveCopier,
 * the storage controllers and the kubelet are played against the same drivers ({@link
 * TwoNodeEndToEndTest}). The claim fails over to node-b with the data of its last sync and the loss
 * reported, node-a's stale copy is demoted and discarded when it returns, node-a becomes the
 * standby again, and a planned switchover takes the claim back with nothing lost.
 */
class VolumeReplicationEndToEndTest extends TwoNodeEndToEndTest {

  private static final String CLAIM = "data";
  private static final String REPLICATION = "data";
  private static final Duration REPLICATING = Duration.ofMinutes(4);

  private DriverCalls calls;

  @Override
  MoveCopier copier() {
    calls = new DriverCalls(client, NAMESPACE, () -> ReviewedTokens.OPERATOR_TOKEN);
    return new GrpcMoveCopier(calls);
  }

  @AfterEach
  void closeCalls() {
    if (calls != null) {
      calls.close();
    }
  }

  @Test
  void aReplicatedClaimSurvivesItsNodesLossAndSwitchesBackWithNothingLost() throws Exception {
    provisioned(CLAIM, A, null);
    VolumeReplications.ready(client, A, true);
    VolumeReplications.ready(client, B, true);
    PlayedPod app = PlayedPod.start(client, nodes.node(A), APPS, "app", CLAIM);
    String synced = DataFiles.writeRandom(app.mount().resolve("synced.bin"), 16 * MIB);
    app.sync();
    // an hour between syncs: the first is made at once, no other before the node is lost
    VolumeReplications.createClass(client, "hourly", DRIVER, "1h");
    VolumeReplications.create(client, APPS, REPLICATION, "hourly", CLAIM, true);
    VolumeReplication first =
        awaitReplication("a first replica on node-b", r -> acknowledgedOn(r, B));
    assertThat(first.getStatus().getPrimaryNode()).isEqualTo(A);
    assertThat(first.getStatus().getState()).isEqualTo(ReplicaState.Primary);
    assertThat(first.getStatus().getLastSyncBytes()).isGreaterThanOrEqualTo(16 * MIB);
    assertThat(condition(first, "Replicating")).isEqualTo("True");
    String lastSync = first.getStatus().getLastSyncTime();
    String replica = first.getStatus().getReplica().getVolumeHandle();
    assertThat(nodes.node(B).volumes()).containsExactly(replica);

    // written after the last sync, then node-a is lost and declared dead
    Files.writeString(app.mount().resolve("marker.txt"), "after the last sync");
    app.sync();
    VolumeReplications.outOfService(client, A, true);
    VolumeReplications.ready(client, A, false);
    // No pod garbage collector runs here (the real one takes up to 20 s after the taint, 40 s after
    // a Node's deletion): the failover deletes the dead node's pod itself.

    VolumeReplication failedOver =
        awaitReplication(
            "failed over to node-b",
            r -> B.equals(r.getStatus().getPrimaryNode()) && r.getStatus().getVolumeMove() == null);
    assertThat(failedOver.getStatus().getLastFailover().getDataLostAfter()).isEqualTo(lastSync);
    assertThat(failedOver.getStatus().getLastFailover().getFromNode()).isEqualTo(A);
    assertThat(failedOver.getStatus().getStaleCopy().getNode()).isEqualTo(A);
    assertThat(condition(failedOver, "Degraded")).isEqualTo("True");
    assertThat(failedOver.getStatus().getMessage()).contains("after " + lastSync + " is lost");
    PersistentVolume onB = volumeOf(claim());
    assertThat(VolumeNodes.of(onB)).containsExactly(B);
    assertThat(onB.getSpec().getCsi().getVolumeHandle()).isEqualTo(replica);
    PlayedPod restarted = PlayedPod.start(client, nodes.node(B), APPS, "app-b", CLAIM);
    assertThat(DataFiles.sha256(restarted.mount().resolve("synced.bin"))).isEqualTo(synced);
    assertThat(restarted.mount().resolve("marker.txt")).as("written after the sync").doesNotExist();
    assertThat(eventReasons(APPS, REPLICATION)).contains("FailingOver", "FailedOver");
    assertThat(client.pods().inNamespace(APPS).withName("app").get())
        .as("the pod of the fenced node")
        .isNull();
    assertThat(eventReasons(APPS, failedOver.getStatus().getLastFailover().getVolumeMove()))
        .contains("DeletedFencedPods");

    // node-a returns: its kubelet unmounts what the dead pod left; the stale copy is demoted,
    // discarded (autoResync), and node-a holds the new replica
    app.stop();
    VolumeReplications.outOfService(client, A, false);
    VolumeReplications.ready(client, A, true);
    VolumeReplication resynced =
        awaitReplication(
            "the stale copy discarded, node-a the standby",
            r -> r.getStatus().getStaleCopy() == null && acknowledgedOn(r, A));
    assertThat(eventReasons(APPS, REPLICATION))
        .contains("StaleCopyDemoted", "StaleCopyDiscarded", "Resynced");
    String newReplica = resynced.getStatus().getReplica().getVolumeHandle();
    awaitCopying(
        "node-a's stale copy deleted by its provisioner",
        () -> nodes.node(A).volumes().equals(List.of(newReplica)));

    // planned switchover back to node-a: nothing written on node-b is lost
    String afterFailover =
        DataFiles.writeRandom(restarted.mount().resolve("after-failover.bin"), 8 * MIB);
    restarted.sync();
    client
        .resources(VolumeReplication.class)
        .inNamespace(APPS)
        .withName(REPLICATION)
        .edit(
            r -> {
              r.getSpec().setReplicationState(ReplicationState.secondary);
              return r;
            });
    awaitReplication(
        "a switchover waiting for the claim to be unused",
        r -> r.getStatus().getVolumeMove() != null);
    restarted.stop();
    awaitReplication(
        "switched over to node-a",
        r ->
            r.getStatus().getState() == ReplicaState.Secondary
                && A.equals(r.getStatus().getPrimaryNode()));
    assertThat(VolumeNodes.of(volumeOf(claim()))).containsExactly(A);
    PlayedPod home = PlayedPod.start(client, nodes.node(A), APPS, "app-home", CLAIM);
    assertThat(DataFiles.sha256(home.mount().resolve("synced.bin"))).isEqualTo(synced);
    assertThat(DataFiles.sha256(home.mount().resolve("after-failover.bin")))
        .isEqualTo(afterFailover);
    assertThat(eventReasons(APPS, REPLICATION)).contains("SwitchingOver", "SwitchedOver");
    // the Event, not status.message: the message already says what runs next (the new standby's
    // first sync)
    assertThat(DescribedEvents.events(client, null, APPS, REPLICATION, null))
        .filteredOn(e -> "SwitchedOver".equals(e.getReason()))
        .singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("with nothing lost"));
    home.stop();
  }

  private VolumeReplication awaitReplication(String what, Predicate<VolumeReplication> reached) {
    try {
      return VolumeReplications.await(client, APPS, REPLICATION, what, REPLICATING, reached);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; the played controllers met: " + controllers.failures(), e);
    }
  }

  private static boolean acknowledgedOn(VolumeReplication replication, String node) {
    var replica = replication.getStatus().getReplica();
    return replica != null
        && node.equals(replica.getNode())
        && Boolean.TRUE.equals(replica.getAcknowledged());
  }

  private static String condition(VolumeReplication replication, String type) {
    return replication.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(c -> c.getStatus())
        .findFirst()
        .orElse(null);
  }

  private PersistentVolumeClaim claim() {
    return client.persistentVolumeClaims().inNamespace(APPS).withName(CLAIM).get();
  }

  private PersistentVolume volumeOf(PersistentVolumeClaim claim) {
    return client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
  }

  /** The cut-over's admission policy denies the operator's dry runs: no refusal. */
  @Override
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return VolumeMoves.withoutCutOverDenials(super.refusedOperatorRequests());
  }
}
