package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the controllers a bare API server lacks (no kubelet, no controller manager) would do, done
 * by a test explicitly and the same way in both worlds: the strict mock, like a real server, keeps
 * a status to the writes of its subresource and a deleted claim until its protection is released.
 */
public final class PlayedControllers {

  private static final List<String> STORAGE_PROTECTION =
      List.of(
          BuiltInKinds.CLAIM_PROTECTION,
          BuiltInKinds.VOLUME_PROTECTION,
          BuiltInKinds.ATTRIBUTES_CLASS_PROTECTION);

  private PlayedControllers() {}

  /**
   * The pvc-protection, pv-protection and vac-protection controllers on a claim, volume or
   * VolumeAttributesClass nothing uses: they remove their finalizer, so that a deletion completes.
   * Waits until the object is gone if it was deleted.
   */
  public static void releaseStorageProtection(KubernetesClient client, HasMetadata object) {
    var resource = client.resource(object);
    HasMetadata current = resource.get();
    if (current == null) {
      return;
    }
    List<String> kept =
        current.getMetadata().getFinalizers().stream()
            .filter(f -> !STORAGE_PROTECTION.contains(f))
            .toList();
    if (kept.size() != current.getMetadata().getFinalizers().size()) {
      Map<String, Object> finalizers = new java.util.HashMap<>();
      finalizers.put("finalizers", kept.isEmpty() ? null : kept);
      resource.patch(
          PatchContext.of(PatchType.JSON_MERGE),
          Serialization.asJson(Map.of("metadata", finalizers)));
    }
    if (current.getMetadata().getDeletionTimestamp() != null && kept.isEmpty()) {
      resource.waitUntilCondition(o -> o == null, 30, TimeUnit.SECONDS);
    }
  }

  /**
   * Deletes an object nothing uses, as the user and the protection controllers (for a claim, volume
   * or VolumeAttributesClass) do.
   */
  public static void deleteUnused(KubernetesClient client, HasMetadata object) {
    client.resource(object).withGracePeriod(0).delete();
    if (BuiltInKinds.PROTECTED_KINDS.contains(object.getKind())) {
      releaseStorageProtection(client, object);
    }
  }

  /**
   * The PV controller binding a claim to a volume made for it: the volume's claimRef and phase
   * Bound, the claim's volumeName, capacity, access modes and phase Bound.
   */
  public static PersistentVolumeClaim bind(
      KubernetesClient client, PersistentVolume volume, PersistentVolumeClaim claim) {
    PersistentVolumeClaim storedClaim = client.resource(claim).get();
    PersistentVolume storedVolume = client.resource(volume).get();
    storedVolume
        .getSpec()
        .setClaimRef(
            new io.fabric8.kubernetes.api.model.ObjectReferenceBuilder()
                .withKind("PersistentVolumeClaim")
                .withApiVersion("v1")
                .withNamespace(storedClaim.getMetadata().getNamespace())
                .withName(storedClaim.getMetadata().getName())
                .withUid(storedClaim.getMetadata().getUid())
                .build());
    storedVolume = client.resource(storedVolume).update();
    storedVolume.setStatus(new PersistentVolumeStatusBuilder().withPhase("Bound").build());
    client.resource(storedVolume).updateStatus();
    storedClaim.getSpec().setVolumeName(storedVolume.getMetadata().getName());
    storedClaim.getMetadata().getAnnotations().put("pv.kubernetes.io/bind-completed", "yes");
    storedClaim = client.resource(storedClaim).update();
    storedClaim.setStatus(
        new PersistentVolumeClaimStatusBuilder()
            .withPhase("Bound")
            .withCapacity(storedVolume.getSpec().getCapacity())
            .withAccessModes(storedVolume.getSpec().getAccessModes())
            .build());
    return client.resource(storedClaim).updateStatus();
  }

  /**
   * Creates an object whose status a controller owns (a pod's the kubelet's, a bound claim's and
   * volume's the PV controller's, a DaemonSet's its controller's): the object, then the status it
   * carries as that controller writes it, through the status subresource (a create ignores it).
   */
  public static <T extends HasMetadata> T createWithStatus(KubernetesClient client, T object) {
    T created = client.resource(object).create();
    JsonNode status = Serialization.jsonMapper().valueToTree(object).path("status");
    if (status.isMissingNode() || status.isNull() || status.isEmpty()) {
      return created;
    }
    ObjectNode withStatus = Serialization.jsonMapper().valueToTree(created);
    withStatus.set("status", status);
    @SuppressWarnings("unchecked")
    T written =
        (T)
            client
                .resource(Serialization.jsonMapper().convertValue(withStatus, object.getClass()))
                .updateStatus();
    return written;
  }

  /**
   * The kubelet's status of a pod that runs: phase Running, the pod's IP, condition Ready as given.
   */
  public static Pod podRunning(KubernetesClient client, Pod pod, String podIp, boolean ready) {
    Pod stored = client.resource(pod).get();
    stored.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(podIp)
            .withConditions(
                new PodConditionBuilder()
                    .withType("Ready")
                    .withStatus(ready ? "True" : "False")
                    .build())
            .build());
    return client.resource(stored).updateStatus();
  }
}
