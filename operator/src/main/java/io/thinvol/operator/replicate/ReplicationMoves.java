package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.api.v1alpha1.KeepSourceUntil;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveSpec;
import io.thinvol.api.v1alpha1.VolumeReplication;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The VolumeMoves a replication makes for a failover or a switchover: the claim to the replica's
 * node, the replica as its pre-copy ({@code spec.volumeReplication}), labelled with the replication
 * and owned by it. One not ended is taken up again rather than made twice (an operator that stopped
 * after making one).
 */
final class ReplicationMoves {

  static final String FAILOVER = "failover";
  static final String SWITCHOVER = "switchover";

  private ReplicationMoves() {}

  /** The move of {@code kind} under way for the replication, or a new one; answers its name. */
  static String ensure(
      KubernetesClient client, VolumeReplication replication, String kind, String target) {
    ReplicationNames names = new ReplicationNames(replication);
    List<VolumeMove> made = madeFor(client, names);
    Optional<VolumeMove> running =
        made.stream()
            .filter(m -> m.getMetadata().getName().contains("-" + kind + "-"))
            .filter(m -> !ended(m))
            .findFirst();
    if (running.isPresent()) {
      return running.get().getMetadata().getName();
    }
    VolumeMove move = move(replication, names.move(kind, made.size() + 1), target);
    try {
      client.resource(move).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
    return move.getMetadata().getName();
  }

  static List<VolumeMove> madeFor(KubernetesClient client, ReplicationNames names) {
    return client
        .resources(VolumeMove.class)
        .inNamespace(names.namespace())
        .withLabel(ReplicationNames.LABEL, names.name())
        .list()
        .getItems();
  }

  static boolean ended(VolumeMove move) {
    MovePhase phase = move.getStatus() == null ? null : move.getStatus().getPhase();
    return phase == MovePhase.Succeeded || phase == MovePhase.Failed;
  }

  /** The move itself: pure, from the replication. */
  static VolumeMove move(VolumeReplication replication, String name, String target) {
    VolumeMove move = new VolumeMove();
    move.getMetadata().setName(name);
    move.getMetadata().setNamespace(replication.getMetadata().getNamespace());
    move.getMetadata()
        .setLabels(Map.of(ReplicationNames.LABEL, replication.getMetadata().getName()));
    move.getMetadata()
        .setOwnerReferences(
            List.of(
                new OwnerReferenceBuilder()
                    .withApiVersion(replication.getApiVersion())
                    .withKind(replication.getKind())
                    .withName(replication.getMetadata().getName())
                    .withUid(replication.getMetadata().getUid())
                    .build()));
    VolumeMoveSpec spec = new VolumeMoveSpec();
    spec.setPersistentVolumeClaim(replication.getSpec().getDataSource().getName());
    spec.setTargetNode(target);
    spec.setVolumeReplication(replication.getMetadata().getName());
    spec.setKeepSourceUntil(KeepSourceUntil.Bound);
    move.setSpec(spec);
    return move;
  }
}
