package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.util.List;
import java.util.Optional;

/**
 * What a move must be to start, checked before it makes anything: a bound claim of a thinvol driver
 * whose backend exists, mounted by one node at a time, not moved by an older move, a target other
 * than its node that serves its driver, and a cluster that serves the snapshot API.
 */
final class MoveValidation {

  /** What a valid move starts from. */
  record Source(
      PersistentVolumeClaim claim,
      PersistentVolume volume,
      StorageBackend backend,
      String driver,
      String node) {}

  private MoveValidation() {}

  static Source check(Move move) throws MoveFailure {
    MoveServices services = move.services();
    MoveNames names = move.names();
    String where = names.namespace() + "/" + names.claim();
    if (!services.settings().snapshotApi()) {
      throw MoveFailure.refused(
          "SnapshotApiMissing",
          "the cluster does not serve the snapshot API (snapshot.storage.k8s.io), which a move"
              + " copies through; install the snapshot CRDs and controller");
    }
    PersistentVolumeClaim claim =
        move.cluster()
            .claim(names.namespace(), names.claim())
            .orElseThrow(
                () ->
                    MoveFailure.refused(
                        "ClaimNotFound", "PersistentVolumeClaim " + where + " does not exist"));
    String volumeName = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
    String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
    if (!"Bound".equals(phase) || volumeName == null || volumeName.isEmpty()) {
      throw MoveFailure.refused(
          "ClaimNotBound",
          "PersistentVolumeClaim " + where + " is not bound to a volume (" + phase + ")");
    }
    PersistentVolume volume =
        move.cluster()
            .volume(volumeName)
            .orElseThrow(
                () ->
                    MoveFailure.refused(
                        "VolumeNotFound", "PersistentVolume " + volumeName + " does not exist"));
    String driver =
        volume.getSpec().getCsi() == null ? null : volume.getSpec().getCsi().getDriver();
    Optional<String> backendName =
        driver == null ? Optional.empty() : BackendNames.backendOfDriver(driver);
    if (backendName.isEmpty()) {
      throw MoveFailure.refused(
          "NotThinvol",
          "PersistentVolume "
              + volumeName
              + " is not a volume of a thinvol driver (<backend>.thinvol.io); only those move");
    }
    StorageBackend backend =
        Optional.ofNullable(
                services
                    .cluster()
                    .client()
                    .resources(StorageBackend.class)
                    .withName(backendName.get())
                    .get())
            .orElseThrow(
                () ->
                    MoveFailure.refused(
                        "BackendNotFound",
                        "PersistentVolume "
                            + volumeName
                            + " belongs to driver "
                            + driver
                            + ", but StorageBackend "
                            + backendName.get()
                            + " does not exist"));
    List<String> modes = claim.getSpec().getAccessModes();
    if (modes == null
        || modes.isEmpty()
        || !modes.stream()
            .allMatch(m -> m.equals("ReadWriteOnce") || m.equals("ReadWriteOncePod"))) {
      throw MoveFailure.refused(
          "AccessModeUnsupported",
          "PersistentVolumeClaim "
              + where
              + " has access modes "
              + modes
              + "; only ReadWriteOnce and ReadWriteOncePod claims move");
    }
    Optional<VolumeMove> older = services.moves().olderOfSameClaim(move.resource());
    if (older.isPresent()) {
      throw MoveFailure.refused(
          "AlreadyMoving",
          "VolumeMove "
              + older.get().getMetadata().getName()
              + " already moves PersistentVolumeClaim "
              + where);
    }
    String node =
        VolumeNodes.of(volume).stream()
            .findFirst()
            .orElseThrow(
                () ->
                    MoveFailure.refused(
                        "NoNode",
                        "PersistentVolume "
                            + volumeName
                            + " has no node affinity on "
                            + BackendNames.TOPOLOGY_KEY));
    String target = move.resource().getSpec().getTargetNode();
    if (target != null && !target.isEmpty()) {
      if (target.equals(node)) {
        throw MoveFailure.refused(
            "TargetIsSource",
            "PersistentVolumeClaim " + where + " is on node " + node + " already");
      }
      if (!services.targets().serves(target, driver)) {
        throw MoveFailure.refused(
            "TargetWithoutDriver",
            "node "
                + target
                + " does not run driver "
                + driver
                + " (its CSINode does not list it)");
      }
    }
    return new Source(claim, volume, backend, driver, node);
  }
}
