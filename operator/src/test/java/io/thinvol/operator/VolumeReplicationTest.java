package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.testing.DescribedEvents;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * VolumeReplications with the drivers' calls faked ({@link FakeMoveCopier}) and the storage
 * controllers played: the syncs and what they ask of the drivers, the fence that alone fails a
 * claim over (never NotReady), the failover's move, a refused replication, and its deletion.
 */
class VolumeReplicationTest extends MoveClusterTest {

  private static final String REPLICATION = "data";
  private static final Duration SYNCING = Duration.ofSeconds(60);

  private String uid;

  @BeforeEach
  void replication() {
    VolumeReplications.ready(client, "node-a", true);
    VolumeReplications.ready(client, "node-b", true);
  }

  private VolumeReplication start(String interval) {
    VolumeReplications.createClass(client, "fast", DRIVER, interval);
    VolumeReplication made =
        VolumeReplications.create(client, APPS, REPLICATION, "fast", CLAIM, false);
    uid = made.getMetadata().getUid();
    return awaitReplication("a replica on node-b", r -> acknowledged(r, 1));
  }

  @Test
  void eachSyncIsASnapshotAndAReplicaOntoThePreviousOneTold() {
    VolumeReplication first = start("10s");
    assertThat(first.getStatus().getPrimaryNode()).isEqualTo("node-a");
    assertThat(first.getStatus().getStandbyNode()).isEqualTo("node-b");
    assertThat(first.getStatus().getLastSyncBytes()).isEqualTo(FakeMoveCopier.ALLOCATED);
    assertThat(copier.snapshots)
        .first()
        .isEqualTo(new MoveCopier.SnapshotOf("thinvol-repl-" + uid + "-1", OLD_HANDLE));
    MoveCopier.ReplicaIn whole = copier.replicas.get(0);
    assertThat(whole.baseVolumeId()).as("the first is whole").isNull();
    assertThat(whole.replicationId()).isEqualTo(uid);
    assertThat(whole.namespace()).isEqualTo(APPS);
    assertThat(copier.roles).contains("ENABLE " + OLD_HANDLE + " on " + driverPod("node-a"));
    assertThat(copier.synced)
        .extracting(MoveCopier.Synced::volumeId)
        .containsExactly(OLD_HANDLE, "replica-thinvol-repl-" + uid + "-1");

    VolumeReplication second = awaitReplication("a second sync", r -> acknowledged(r, 2));
    assertThat(copier.replicas.get(1).baseVolumeId())
        .as("onto the previous replica")
        .isEqualTo("replica-thinvol-repl-" + uid + "-1");
    assertThat(second.getStatus().getLastSyncBytes()).isEqualTo(FakeMoveCopier.DELTA);
    assertThat(events()).contains("StandbyChosen", "Resynced");
    assertThat(condition(second, "Replicating")).isEqualTo("True");
    assertThat(condition(second, "Validated")).isEqualTo("True");
  }

  @Test
  void aNodeThatIsOnlyNotReadyIsNeverFailedOverOneOutOfServiceIs() throws Exception {
    VolumeReplication synced = start("1h");
    VolumeReplications.ready(client, "node-a", false);
    VolumeReplication notReady = awaitReplication("NotReady said", r -> primaryNotReady(r));
    assertThat(moves()).as("NotReady alone: a partitioned node may still write").isEmpty();
    assertThat(notReady.getStatus().getPrimaryNode()).isEqualTo("node-a");
    assertThat(notReady.getStatus().getMessage())
        .contains("node node-a of PersistentVolumeClaim " + CLAIM + " is NotReady")
        .contains("kubectl taint node node-a node.kubernetes.io/out-of-service");
    assertThat(events()).contains("PrimaryNodeNotReady");

    VolumeReplications.outOfService(client, "node-a", true);
    stopApp(); // the pod GC deletes the pods of a node out of service
    VolumeReplication failedOver =
        awaitReplication(
            "failed over to node-b", r -> "node-b".equals(r.getStatus().getPrimaryNode()));
    VolumeMove move = moves().get(0);
    assertThat(move.getSpec().getVolumeReplication()).isEqualTo(REPLICATION);
    assertThat(move.getSpec().getTargetNode()).isEqualTo("node-b");
    assertThat(move.getStatus().getPhase()).isEqualTo(MovePhase.Succeeded);
    assertThat(move.getStatus().getReplicaCutOver()).isEqualTo("Promoted");
    assertThat(copier.snapshots).as("no snapshot of the dead node's volume").hasSize(1);
    assertThat(copier.roles)
        .contains("PROMOTE replica-thinvol-repl-" + uid + "-1 on " + driverPod("node-b"));
    assertThat(claim().getSpec().getVolumeName())
        .isEqualTo("thinvol-move-" + move.getMetadata().getUid());
    assertThat(failedOver.getStatus().getLastFailover().getDataLostAfter())
        .isEqualTo(synced.getStatus().getLastSyncTime());
    assertThat(failedOver.getStatus().getStaleCopy().getPersistentVolume()).isEqualTo(OLD_PV);
    assertThat(volume(OLD_PV).getSpec().getPersistentVolumeReclaimPolicy())
        .as("the stale copy kept")
        .isEqualTo("Retain");
    assertThat(volume(OLD_PV).getMetadata().getAnnotations())
        .containsEntry("thinvol.io/stale-copy-of", APPS + "/" + REPLICATION);
    assertThat(events()).contains("FailingOver", "FailedOver");
  }

  @Test
  void aFailedNodesCopyIsDemotedWhenItReturnsAndKeptWithoutAutoResync() {
    start("1h");
    VolumeReplications.outOfService(client, "node-a", true);
    stopApp();
    awaitReplication("failed over", r -> r.getStatus().getStaleCopy() != null);
    assertThat(copier.roles).noneMatch(role -> role.startsWith("DEMOTE"));

    VolumeReplications.outOfService(client, "node-a", false);
    VolumeReplication kept =
        awaitReplication(
            "the stale copy demoted and kept",
            r -> Boolean.TRUE.equals(r.getStatus().getStaleCopy().getDemoted()));
    assertThat(copier.roles).contains("DEMOTE " + OLD_HANDLE + " on " + driverPod("node-a"));
    assertThat(
            kept.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals("Degraded"))
                .findFirst()
                .orElseThrow()
                .getReason())
        .isEqualTo("StaleCopyKept");
    assertThat(volume(OLD_PV).getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    await("a Warning", () -> events().contains("StaleCopyKept"));
  }

  @Test
  void aDeletedNodeIsFailedOverToo() {
    start("1h");
    stopApp();
    client.nodes().withName("node-a").delete();
    awaitReplication("failed over", r -> "node-b".equals(r.getStatus().getPrimaryNode()));
    assertThat(moves()).hasSize(1);
  }

  @Test
  void aReplicationOfAMissingClassIsRefusedAndNothingIsAsked() {
    VolumeReplications.create(client, APPS, REPLICATION, "missing", CLAIM, false);
    VolumeReplication refused =
        awaitReplication("not validated", r -> "False".equals(condition(r, "Validated")));
    assertThat(refused.getStatus().getMessage())
        .contains("VolumeReplicationClass missing does not exist");
    assertThat(refused.getStatus().getState()).hasToString("Unknown");
    assertThat(copier.snapshots).isEmpty();
    await("a Warning", () -> events().contains("ClassNotFound"));
  }

  @Test
  void aDeletedReplicationDropsItsReplicaAndStopsThePrimary() {
    start("1h");
    client.resources(VolumeReplication.class).inNamespace(APPS).withName(REPLICATION).delete();
    await("deleted", () -> get() == null);
    assertThat(copier.droppedCopies)
        .contains("thinvol-repl-" + uid + "-1 snap-thinvol-repl-" + uid + "-1");
    assertThat(copier.roles).contains("DISABLE " + OLD_HANDLE + " on " + driverPod("node-a"));
  }

  @Test
  void aPrimaryNodeNotReadyIsSaidAndUnsaidOnceItIsReadyAgain() {
    start("1h");
    VolumeReplications.ready(client, "node-a", false);
    awaitReplication("NotReady said", r -> primaryNotReady(r));

    VolumeReplications.ready(client, "node-a", true);
    VolumeReplication ready =
        awaitReplication(
            "Ready again said",
            r -> degraded(r).filter(c -> c.getReason().equals("PrimaryNodeReady")).isPresent());
    assertThat(degraded(ready).orElseThrow().getStatus()).isEqualTo("False");
    assertThat(events()).contains("PrimaryNodeNotReady", "PrimaryNodeReady");
    assertThat(moves()).isEmpty();
  }

  private static boolean primaryNotReady(VolumeReplication replication) {
    return degraded(replication)
        .filter(c -> c.getStatus().equals("True") && c.getReason().equals("PrimaryNodeNotReady"))
        .isPresent();
  }

  private static Optional<Condition> degraded(VolumeReplication replication) {
    return replication.getStatus() == null
        ? Optional.empty()
        : Conditions.find(replication.getStatus().getConditions(), "Degraded");
  }

  private VolumeReplication awaitReplication(String what, Predicate<VolumeReplication> reached) {
    return VolumeReplications.await(client, APPS, REPLICATION, what, SYNCING, reached);
  }

  private static boolean acknowledged(VolumeReplication replication, long sync) {
    var replica = replication.getStatus().getReplica();
    return replica != null
        && replica.getSync() == sync
        && Boolean.TRUE.equals(replica.getAcknowledged());
  }

  private VolumeReplication get() {
    return VolumeReplications.get(client, APPS, REPLICATION);
  }

  private List<VolumeMove> moves() {
    return client.resources(VolumeMove.class).inNamespace(APPS).list().getItems();
  }

  private List<String> events() {
    VolumeReplication now = get();
    return DescribedEvents.reasons(
        client,
        "VolumeReplication",
        APPS,
        REPLICATION,
        now == null ? null : now.getMetadata().getUid());
  }

  private static String condition(VolumeReplication replication, String type) {
    return replication.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(c -> c.getStatus())
        .findFirst()
        .orElse(null);
  }

  private static String driverPod(String node) {
    return io.thinvol.addons.ClusterFixtures.driverPod(NAMESPACE, BACKEND, node, "", 0)
        .getMetadata()
        .getName();
  }
}
