package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.api.v1alpha1.MovePhase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The cut-over up to the claim's deletion, in this order because each step guards the next: the
 * admission policy that keeps the claim's name for the operator, confirmed in force (a dry-run
 * create of the claim must be denied by it, not answered "already exists"); the claim unused still;
 * the old volume's reclaim policy recorded in the status, then held at Retain (so that the claim's
 * deletion cannot delete the volume) with the claim as it was written on it; then the claim
 * deleted, only if it is still the claim read.
 */
final class ClaimRelease {

  /** A policy is in force within seconds; this long without is a fault of the cluster. */
  static final Duration POLICY_DEADLINE = Duration.ofMinutes(1);

  static final Duration POLL = Duration.ofMillis(500);

  private ClaimRelease() {}

  /**
   * @return when to look again
   */
  static Duration run(Move move, PersistentVolumeClaim claim, PersistentVolume old)
      throws MoveFailure {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    cluster.ensurePolicy(
        CutOverWindow.policy(names, move.name(), move.services().operatorUser()),
        CutOverWindow.binding(names));
    if (!cluster.policyInForce(names, claim)) {
      Instant since = Instant.parse(move.status().getCutOverStartTime());
      if (move.now().isAfter(since.plus(POLICY_DEADLINE))) {
        throw MoveFailure.failed(
            "AdmissionPolicyNotInForce",
            "the API server did not enforce ValidatingAdmissionPolicy "
                + names.window()
                + " within "
                + POLICY_DEADLINE.toSeconds()
                + "s; is admissionregistration.k8s.io/v1 served (Kubernetes 1.30 or later)?");
      }
      move.message("waiting for ValidatingAdmissionPolicy " + names.window() + " to be in force");
      move.save();
      return POLL;
    }
    List<String> users = ReplicaMove.users(move);
    if (!users.isEmpty()) {
      // A pod started between the wait and now: give the claim back to it, wait again.
      cluster.deletePolicy(names);
      move.status().setCutOverStartTime(null);
      move.phase(
          MovePhase.WaitingForCutOver,
          "pod " + String.join(", ", users) + " started using the claim; waiting again");
      move.condition(MoveStatusModel.CUT_OVER, false, "Waiting", move.status().getMessage());
      move.save();
      return WaitStep.POLL;
    }
    if (move.status().getOriginalReclaimPolicy() == null) {
      move.status().setOriginalReclaimPolicy(old.getSpec().getPersistentVolumeReclaimPolicy());
      move.save(); // known before the volume is changed: a restart restores it from here
    }
    if (!VolumeObjects.heldBy(old, names)) {
      cluster.patchVolume(
          old.getMetadata().getName(), VolumeObjects.holdPatch(names, SavedClaim.of(claim)));
    }
    cluster.deleteClaim(claim);
    move.message(
        "deleted PersistentVolumeClaim "
            + names.claim()
            + " (its volume "
            + old.getMetadata().getName()
            + " held at Retain); waiting for it to be gone");
    move.save();
    return POLL;
  }
}
