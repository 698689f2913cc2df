package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a replication must be to run, read from the cluster each time: its class exists, names the
 * claim's driver and has parameters thinvol reads; the claim is bound to a volume of a thinvol
 * StorageBackend on one node, mounted by one node at a time; no older replication has the claim.
 */
final class ReplicationValidation {

  private ReplicationValidation() {}

  static ReplicatedClaim check(Replication replication) throws ReplicationFailure {
    KubernetesClient client = replication.services().client();
    VolumeReplication resource = replication.resource();
    ReplicationNames names = replication.names();
    String where = names.namespace() + "/" + names.claim();
    String className = resource.getSpec().getVolumeReplicationClass();
    VolumeReplicationClass replicationClass =
        client.resources(VolumeReplicationClass.class).withName(className).get();
    if (replicationClass == null || replicationClass.getSpec() == null) {
      throw new ReplicationFailure(
          "ClassNotFound", "VolumeReplicationClass " + className + " does not exist");
    }
    ClassParameters.Result parsed =
        ClassParameters.parse(replicationClass.getSpec().getParameters());
    if (parsed.problem() != null) {
      throw new ReplicationFailure(
          "ParametersInvalid", "VolumeReplicationClass " + className + ": " + parsed.problem());
    }
    PersistentVolumeClaim claim =
        client
            .persistentVolumeClaims()
            .inNamespace(names.namespace())
            .withName(names.claim())
            .get();
    if (claim == null) {
      throw new ReplicationFailure(
          "ClaimNotFound", "PersistentVolumeClaim " + where + " does not exist");
    }
    String volumeName = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
    String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
    if (!"Bound".equals(phase) || volumeName == null || volumeName.isEmpty()) {
      throw new ReplicationFailure(
          "ClaimNotBound",
          "PersistentVolumeClaim " + where + " is not bound to a volume yet (" + phase + ")");
    }
    PersistentVolume volume = client.persistentVolumes().withName(volumeName).get();
    String driver =
        volume == null || volume.getSpec().getCsi() == null
            ? null
            : volume.getSpec().getCsi().getDriver();
    Optional<String> backend =
        driver == null ? Optional.empty() : BackendNames.backendOfDriver(driver);
    if (backend.isEmpty()) {
      throw new ReplicationFailure(
          "NotThinvol",
          "PersistentVolume "
              + volumeName
              + " is not a volume of a thinvol driver (<backend>.thinvol.io)");
    }
    if (!driver.equals(replicationClass.getSpec().getProvisioner())) {
      throw new ReplicationFailure(
          "ProvisionerMismatch",
          "VolumeReplicationClass "
              + className
              + " is for provisioner "
              + replicationClass.getSpec().getProvisioner()
              + ", the claim's volume is of "
              + driver);
    }
    if (client.resources(StorageBackend.class).withName(backend.get()).get() == null) {
      throw new ReplicationFailure(
          "BackendNotFound", "StorageBackend " + backend.get() + " does not exist");
    }
    List<String> modes = claim.getSpec().getAccessModes();
    if (modes == null
        || modes.isEmpty()
        || !modes.stream()
            .allMatch(m -> m.equals("ReadWriteOnce") || m.equals("ReadWriteOncePod"))) {
      throw new ReplicationFailure(
          "AccessModeUnsupported",
          "PersistentVolumeClaim "
              + where
              + " has access modes "
              + modes
              + "; only ReadWriteOnce and ReadWriteOncePod claims are replicated");
    }
    Optional<VolumeReplication> older = olderOfSameClaim(client, resource);
    if (older.isPresent()) {
      throw new ReplicationFailure(
          "AlreadyReplicated",
          "VolumeReplication "
              + older.get().getMetadata().getName()
              + " replicates PersistentVolumeClaim "
              + where
              + " already");
    }
    String node =
        VolumeNodes.of(volume).stream()
            .findFirst()
            .orElseThrow(
                () ->
                    new ReplicationFailure(
                        "NoNode",
                        "PersistentVolume "
                            + volumeName
                            + " has no node affinity on "
                            + BackendNames.TOPOLOGY_KEY));
    return new ReplicatedClaim(
        claim,
        volume,
        driver,
        backend.get(),
        node,
        parsed.parameters(),
        storageClassParameters(client, claim.getSpec().getStorageClassName()));
  }

  private static Map<String, String> storageClassParameters(
      KubernetesClient client, String storageClass) {
    if (storageClass == null) {
      return Map.of();
    }
    StorageClass found = client.storage().v1().storageClasses().withName(storageClass).get();
    return found == null || found.getParameters() == null ? Map.of() : found.getParameters();
  }

  /** Another replication of the same claim made earlier (by creation time, then name). */
  private static Optional<VolumeReplication> olderOfSameClaim(
      KubernetesClient client, VolumeReplication resource) {
    Comparator<VolumeReplication> age =
        Comparator.comparing((VolumeReplication r) -> r.getMetadata().getCreationTimestamp())
            .thenComparing(r -> r.getMetadata().getName());
    return client
        .resources(VolumeReplication.class)
        .inNamespace(resource.getMetadata().getNamespace())
        .list()
        .getItems()
        .stream()
        .filter(r -> !Objects.equals(r.getMetadata().getUid(), resource.getMetadata().getUid()))
        .filter(r -> r.getSpec() != null && r.getSpec().getDataSource() != null)
        .filter(
            r ->
                Objects.equals(
                    r.getSpec().getDataSource().getName(),
                    resource.getSpec().getDataSource().getName()))
        .filter(r -> r.getMetadata().getDeletionTimestamp() == null)
        .filter(r -> age.compare(r, resource) < 0)
        .min(age);
  }
}
