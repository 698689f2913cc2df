package io.thinvol.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.SpecProblems;
import io.thinvol.operator.model.UnsafeSpecChanges;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Why a StorageBackend cannot be deployed as its spec stands: an impossible spec, a change that
 * would strand volumes, a StorageClass of another owner. Nothing is deployed for such a spec.
 */
final class DeploymentRefusals {

  record Refusal(String reason, String message) {}

  private final VolumesInUse volumesInUse;
  private final ClusterNodes clusterNodes;

  DeploymentRefusals(VolumesInUse volumesInUse, ClusterNodes clusterNodes) {
    this.volumesInUse = volumesInUse;
    this.clusterNodes = clusterNodes;
  }

  /**
   * @param backends every StorageBackend (their names and classes must not collide)
   */
  Optional<Refusal> of(
      StorageBackend backend, List<StorageBackend> backends, KubernetesClient client) {
    List<String> problems = SpecProblems.of(backend, backends);
    if (!problems.isEmpty()) {
      return Optional.of(new Refusal("InvalidSpec", String.join("; ", problems)));
    }
    Optional<UnsafeSpecChanges.Problem> unsafe =
        UnsafeSpecChanges.of(backend, volumesInUse.volumesOf(backend), clusterNodes::named);
    if (unsafe.isEmpty() && !specApplied(backend)) {
      // A volume created a moment before the change may not be in the caches yet, and the node
      // pods would leave its node: a new spec is confirmed against the API server once.
      unsafe =
          UnsafeSpecChanges.of(
              backend,
              volumesInUse.confirmedVolumesOf(backend, client),
              name -> Optional.ofNullable(client.nodes().withName(name).get()));
    }
    if (unsafe.isPresent()) {
      return Optional.of(new Refusal(unsafe.get().reason(), unsafe.get().message()));
    }
    List<String> conflicts = StorageClassConflicts.of(client, backend);
    if (!conflicts.isEmpty()) {
      return Optional.of(
          new Refusal(
              "StorageClassConflict",
              String.join("; ", conflicts)
                  + "; rename the class in spec.storageClasses or remove the other one"));
    }
    return Optional.empty();
  }

  private static boolean specApplied(StorageBackend backend) {
    return backend.getStatus() != null
        && Objects.equals(
            backend.getStatus().getObservedGeneration(), backend.getMetadata().getGeneration());
  }
}
