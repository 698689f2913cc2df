package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A move's reads and writes of the cluster, each idempotent: a create of what exists and a delete
 * of what is gone succeed, so that every step can be taken again after a restart. Reads go to the
 * API server: a step decides on what is there now, not on a cache that may lag its own writes.
 */
final class MoveCluster {

  private final KubernetesClient client;

  MoveCluster(KubernetesClient client) {
    this.client = client;
  }

  Optional<PersistentVolumeClaim> claim(String namespace, String name) {
    return Optional.ofNullable(
        client.persistentVolumeClaims().inNamespace(namespace).withName(name).get());
  }

  Optional<PersistentVolume> volume(String name) {
    return name == null
        ? Optional.empty()
        : Optional.ofNullable(client.persistentVolumes().withName(name).get());
  }

  Optional<GenericKubernetesResource> snapshot(String namespace, String name) {
    return Optional.ofNullable(
        client
            .genericKubernetesResources(SnapshotObjects.API_VERSION, "VolumeSnapshot")
            .inNamespace(namespace)
            .withName(name)
            .get());
  }

  Optional<GenericKubernetesResource> snapshotContent(String name) {
    return Optional.ofNullable(
        client
            .genericKubernetesResources(SnapshotObjects.API_VERSION, "VolumeSnapshotContent")
            .withName(name)
            .get());
  }

  /** Creates the object unless one of its name exists; answers what is stored. */
  <T extends HasMetadata> T ensure(T object) {
    try {
      return client.resource(object).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      T stored = client.resource(object).get();
      return stored != null ? stored : object; // deleted in between: the next step sees it
    }
  }

  void ensurePolicy(ValidatingAdmissionPolicy policy, ValidatingAdmissionPolicyBinding binding) {
    ignoreConflict(() -> client.resource(policy).create());
    ignoreConflict(() -> client.resource(binding).create());
  }

  void deletePolicy(MoveNames names) {
    client
        .admissionRegistration()
        .v1()
        .validatingAdmissionPolicyBindings()
        .withName(names.window())
        .delete();
    client
        .admissionRegistration()
        .v1()
        .validatingAdmissionPolicies()
        .withName(names.window())
        .delete();
  }

  /**
   * Whether the cut-over's policy is in force: a dry-run create of the claim without the move's
   * mark is denied by it. Before it is in force the API server answers that the claim exists.
   */
  boolean policyInForce(MoveNames names, PersistentVolumeClaim claim) {
    PersistentVolumeClaim probe = new PersistentVolumeClaim();
    probe.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    probe.getMetadata().setName(claim.getMetadata().getName());
    probe.getMetadata().setNamespace(claim.getMetadata().getNamespace());
    probe.setSpec(claim.getSpec());
    try {
      client.resource(probe).dryRun().create();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 403
          && e.getMessage() != null
          && e.getMessage().contains(CutOverWindow.denial(names));
    }
  }

  void deleteClaim(String namespace, String name) {
    client.persistentVolumeClaims().inNamespace(namespace).withName(name).delete();
  }

  /**
   * Deletes the claim only if it is still the one read (a resourceVersion precondition, which
   * implies its uid): a claim changed since is looked at again.
   */
  void deleteClaim(PersistentVolumeClaim claim) {
    try {
      client
          .persistentVolumeClaims()
          .inNamespace(claim.getMetadata().getNamespace())
          .withName(claim.getMetadata().getName())
          .lockResourceVersion(claim.getMetadata().getResourceVersion())
          .delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
    }
  }

  void deleteSnapshot(String namespace, String name) {
    client
        .genericKubernetesResources(SnapshotObjects.API_VERSION, "VolumeSnapshot")
        .inNamespace(namespace)
        .withName(name)
        .delete();
  }

  void deleteSnapshotContent(String name) {
    client
        .genericKubernetesResources(SnapshotObjects.API_VERSION, "VolumeSnapshotContent")
        .withName(name)
        .delete();
  }

  void patchVolume(String name, String mergePatch) {
    client
        .persistentVolumes()
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  void patchClaim(String namespace, String name, String mergePatch) {
    client
        .persistentVolumeClaims()
        .inNamespace(namespace)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  /**
   * The pods that use the claim: scheduled to a node and neither Succeeded nor Failed (a pod the
   * scheduler has not placed yet mounts nothing; one that ended holds nothing).
   */
  List<String> podsUsing(String namespace, String claim) {
    return podsUsing(namespace, claim, null);
  }

  /** {@link #podsUsing(String, String)} but those of {@code exceptNode} (null: none excepted). */
  List<String> podsUsing(String namespace, String claim, String exceptNode) {
    return active(namespace, claim)
        .filter(pod -> pod.getSpec().getNodeName() != null)
        .filter(pod -> !pod.getSpec().getNodeName().equals(exceptNode))
        .map(pod -> pod.getMetadata().getName())
        .sorted()
        .toList();
  }

  /** The pods on {@code node} that use the claim and have not ended. */
  List<Pod> podsOn(String namespace, String claim, String node) {
    return active(namespace, claim)
        .filter(pod -> node.equals(pod.getSpec().getNodeName()))
        .toList();
  }

  /** The pods that use the claim and have not ended, wherever they are. */
  private java.util.stream.Stream<Pod> active(String namespace, String claim) {
    return client.pods().inNamespace(namespace).list().getItems().stream()
        .filter(pod -> uses(pod, claim))
        .filter(pod -> !ended(pod));
  }

  /**
   * Deletes the pod with a grace period of 0 if it is still the one read (same uid) on {@code
   * node}.
   *
   * @return whether it was deleted
   */
  boolean deletePodNow(Pod pod, String node) {
    var resource =
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName());
    Pod now = resource.get();
    if (now == null
        || !pod.getMetadata().getUid().equals(now.getMetadata().getUid())
        || !node.equals(now.getSpec().getNodeName())) {
      return false;
    }
    return !resource.withGracePeriod(0).delete().isEmpty();
  }

  /** Whether a Running pod on {@code node} uses the claim. */
  boolean runningOn(String namespace, String claim, String node) {
    return client.pods().inNamespace(namespace).list().getItems().stream()
        .filter(pod -> uses(pod, claim))
        .filter(pod -> node.equals(pod.getSpec().getNodeName()))
        .anyMatch(pod -> pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase()));
  }

  static boolean uses(Pod pod, String claim) {
    return pod.getSpec() != null
        && Optional.ofNullable(pod.getSpec().getVolumes()).orElse(List.of()).stream()
            .map(Volume::getPersistentVolumeClaim)
            .filter(Objects::nonNull)
            .anyMatch(source -> claim.equals(source.getClaimName()));
  }

  private static boolean ended(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  KubernetesClient client() {
    return client;
  }

  private static void ignoreConflict(Runnable create) {
    try {
      create.run();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
