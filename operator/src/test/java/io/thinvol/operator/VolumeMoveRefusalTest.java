package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.PlayedControllers;
import org.junit.jupiter.api.Test;

/** Moves refused at once, with a condition and a Warning, before anything is made. */
class VolumeMoveRefusalTest extends MoveClusterTest {

  @Test
  void aMissingClaim() {
    assertRefused(
        "missing", "  persistentVolumeClaim: nothing\n", "ClaimNotFound", "does not exist");
  }

  @Test
  void aClaimOfAnotherDriver() {
    PersistentVolume volume =
        ClusterFixtures.volume("pv-other", "ebs.csi.aws.com", "vol-1", "node-a", APPS, "other");
    PlayedControllers.createWithStatus(client, volume);
    PersistentVolumeClaim claim = ClusterFixtures.claim(APPS, "other", "gp3");
    claim.getMetadata().setAnnotations(new java.util.HashMap<>());
    client.resource(claim).create();
    PlayedControllers.bind(client, volume, claim);
    assertRefused(
        "other",
        "  persistentVolumeClaim: other\n",
        "NotThinvol",
        "not a volume of a thinvol driver");
  }

  @Test
  void aTargetThatIsTheSource() {
    assertRefused(
        "same",
        "  persistentVolumeClaim: data\n  targetNode: node-a\n",
        "TargetIsSource",
        "on node node-a already");
  }

  @Test
  void aTargetWithoutTheDriver() {
    assertRefused(
        "nowhere",
        "  persistentVolumeClaim: data\n  targetNode: node-d\n",
        "TargetWithoutDriver",
        "node node-d does not run driver local.thinvol.io");
  }

  @Test
  void aSecondMoveOfTheSameClaim() {
    storage.stuckSnapshots.add(CLAIM);
    createMove("first", "  persistentVolumeClaim: data\n  targetNode: node-b\n");
    awaitPhase("first", MovePhase.PreCopying);
    assertRefused(
        "second",
        "  persistentVolumeClaim: data\n  targetNode: node-c\n",
        "AlreadyMoving",
        "VolumeMove first already moves");
    assertThat(move("first").getStatus().getPhase()).isEqualTo(MovePhase.PreCopying);
  }

  private void assertRefused(String name, String spec, String reason, String message) {
    String before = claim().getMetadata().getResourceVersion();
    VolumeMove created = createMove(name, spec);
    VolumeMove failed = awaitPhase(name, MovePhase.Failed);
    assertThat(VolumeMoveTest.condition(failed, "Failed").getReason()).isEqualTo(reason);
    assertThat(failed.getStatus().getMessage()).contains(message);
    assertThat(failed.getStatus().getCompletionTime()).isNotNull();
    await("the Warning", () -> moveEvents(name).contains("Refused"));
    assertThat(moveEvents(name)).containsExactly("Refused");
    assertThat(temporaries(created)).isZero();
    assertThat(claim().getMetadata().getResourceVersion()).isEqualTo(before);
  }
}
