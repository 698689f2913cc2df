package io.thinvol.operator.move;

import io.thinvol.api.v1alpha1.ReplicaPoint;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.operator.nodeloss.NodeHealth;
import java.util.List;
import java.util.Optional;

/**
 * A move a VolumeReplication made (spec.volumeReplication): its pre-copy is the replication's
 * replica on the standby node. At the cut-over it either copies the blocks changed since the last
 * sync onto the replica (a switchover: the source node is up) or, when Kubernetes says the source
 * node is dead and fenced, takes the replica as it is and promotes it once the claim is bound to it
 * (a failover). The choice is the move's own look at the fence, never the spec's word.
 */
final class ReplicaMove {

  /** status.replicaCutOver of a switchover. */
  static final String FINAL_DELTA = "FinalDelta";

  /** status.replicaCutOver of a failover. */
  static final String PROMOTED = "Promoted";

  private ReplicaMove() {}

  static boolean of(Move move) {
    String replication = move.resource().getSpec().getVolumeReplication();
    return replication != null && !replication.isEmpty();
  }

  /** Whether the cut-over takes the replica as it is (decided when the cut-over began). */
  static boolean promoted(Move move) {
    return PROMOTED.equals(move.status().getReplicaCutOver());
  }

  /**
   * The replica to start from: the replication exists, replicates this claim, and has a replica on
   * the move's target (or, with no target, names it).
   */
  static ReplicaPoint replica(Move move) throws MoveFailure {
    String name = move.resource().getSpec().getVolumeReplication();
    VolumeReplication replication =
        move.cluster()
            .client()
            .resources(VolumeReplication.class)
            .inNamespace(move.names().namespace())
            .withName(name)
            .get();
    if (replication == null
        || replication.getSpec() == null
        || !move.names().claim().equals(replication.getSpec().getDataSource().getName())) {
      throw MoveFailure.refused(
          "ReplicationNotFound",
          "VolumeReplication "
              + name
              + " of PersistentVolumeClaim "
              + move.names().claim()
              + " does not exist");
    }
    ReplicaPoint replica =
        replication.getStatus() == null ? null : replication.getStatus().getReplica();
    String target = move.resource().getSpec().getTargetNode();
    if (replica == null
        || (target != null && !target.isEmpty() && !target.equals(replica.getNode()))) {
      throw MoveFailure.refused(
          "NoReplica",
          "VolumeReplication "
              + name
              + " has no replica"
              + (target == null || target.isEmpty() ? "" : " on node " + target)
              + " yet");
    }
    return replica;
  }

  /** Why the source node is dead and fenced (lost), if it is. */
  static Optional<String> sourceFenced(Move move) {
    String node = move.status().getSourceNode();
    NodeHealth health = move.services().nodes().health(node);
    return health.lost()
        ? Optional.of("node " + node + " is " + health.describe())
        : Optional.empty();
  }

  /**
   * Whether the move takes the replica without its source: a replica's move whose cut-over has not
   * begun a final delta. Its source node being lost is then what it is for, not a reason to wait or
   * fail.
   */
  static boolean failsOver(Move move) {
    return of(move) && !FINAL_DELTA.equals(move.status().getReplicaCutOver());
  }

  /**
   * The pods that keep the claim in use: for a failover, not those of the fenced source node (they
   * cannot run; Kubernetes deletes them).
   */
  static List<String> users(Move move) {
    VolumeMoveStatus status = move.status();
    boolean failover =
        of(move)
            && (promoted(move)
                || status.getReplicaCutOver() == null && sourceFenced(move).isPresent());
    return move.cluster()
        .podsUsing(
            move.names().namespace(),
            move.names().claim(),
            failover ? status.getSourceNode() : null);
  }
}
