package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.testing.PlayedControllers;
import java.util.List;
import java.util.Optional;

/**
 * The controller manager's PV controller and protection controllers, played: a claim that names its
 * volume ({@code spec.volumeName}, as a pre-bound one does) is bound to it once the volume's {@code
 * claimRef} names the claim; a bound volume whose claim is gone is Released; a deleted claim no
 * running pod uses, and a deleted volume no claim is bound to, lose their protection finalizer.
 */
final class PlayedVolumeBinder {

  private final KubernetesClient client;

  PlayedVolumeBinder(KubernetesClient client) {
    this.client = client;
  }

  /** One pass over every claim and volume, as after a resync. */
  void pass() {
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      if (claim.getMetadata().getDeletionTimestamp() != null) {
        if (pods.stream().noneMatch(pod -> uses(pod, claim))) {
          PlayedControllers.releaseStorageProtection(client, claim);
        }
      } else if (claim.getSpec().getVolumeName() != null
          && !"Bound".equals(claim.getStatus().getPhase())) {
        PersistentVolume volume =
            client.persistentVolumes().withName(claim.getSpec().getVolumeName()).get();
        if (volume != null && reservedFor(volume.getSpec().getClaimRef(), claim)) {
          PlayedControllers.bind(client, volume, claim);
        }
      }
    }
    for (PersistentVolume volume : client.persistentVolumes().list().getItems()) {
      ObjectReference ref = volume.getSpec().getClaimRef();
      if (volume.getMetadata().getDeletionTimestamp() != null) {
        if (!"Bound".equals(volume.getStatus().getPhase())) {
          PlayedControllers.releaseStorageProtection(client, volume);
        }
      } else if ("Bound".equals(volume.getStatus().getPhase())
          && ref != null
          && ref.getUid() != null
          && !claimExists(ref)) {
        volume.setStatus(new PersistentVolumeStatusBuilder().withPhase("Released").build());
        client.resource(volume).updateStatus();
      }
    }
  }

  /** The volume's claimRef names the claim, by name, and by uid when it has one. */
  private static boolean reservedFor(ObjectReference ref, PersistentVolumeClaim claim) {
    return ref != null
        && claim.getMetadata().getNamespace().equals(ref.getNamespace())
        && claim.getMetadata().getName().equals(ref.getName())
        && (ref.getUid() == null || ref.getUid().equals(claim.getMetadata().getUid()));
  }

  /** The claim a volume was bound to is still there (not one made again under its name). */
  private boolean claimExists(ObjectReference ref) {
    return Optional.ofNullable(
            client
                .persistentVolumeClaims()
                .inNamespace(ref.getNamespace())
                .withName(ref.getName())
                .get())
        .map(claim -> claim.getMetadata().getUid())
        .filter(ref.getUid()::equals)
        .isPresent();
  }

  /** A pod that has not ended and mounts the claim. */
  static boolean uses(Pod pod, PersistentVolumeClaim claim) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getMetadata().getNamespace().equals(claim.getMetadata().getNamespace())
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase)
        && pod.getSpec().getVolumes().stream()
            .anyMatch(
                volume ->
                    volume.getPersistentVolumeClaim() != null
                        && claim
                            .getMetadata()
                            .getName()
                            .equals(volume.getPersistentVolumeClaim().getClaimName()));
  }
}
