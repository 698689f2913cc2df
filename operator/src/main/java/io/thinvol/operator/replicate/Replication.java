package io.thinvol.operator.replicate;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import io.thinvol.api.v1alpha1.VolumeReplicationStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One replication as a reconcile works on it: the resource, the status being written, and the
 * Events to record once that status is saved (so {@code kubectl describe} never shows an Event the
 * status does not back).
 */
final class Replication {

  /** Writes a replication's status; answers the resource as stored. */
  interface StatusWriter {
    VolumeReplication write(VolumeReplication replication, VolumeReplicationStatus status);
  }

  private final ReplicationServices services;
  private final StatusWriter writer;
  private final List<Runnable> events = new ArrayList<>();
  private final VolumeReplicationStatus status;
  private final ReplicationNames names;
  private VolumeReplication resource;

  Replication(ReplicationServices services, VolumeReplication resource, StatusWriter writer) {
    this.services = services;
    this.writer = writer;
    this.resource = resource;
    this.status =
        resource.getStatus() == null
            ? new VolumeReplicationStatus()
            : Serialization.clone(resource.getStatus());
    this.names = new ReplicationNames(resource);
  }

  ReplicationServices services() {
    return services;
  }

  VolumeReplication resource() {
    return resource;
  }

  VolumeReplicationStatus status() {
    return status;
  }

  ReplicationNames names() {
    return names;
  }

  Instant now() {
    return services.clock().instant();
  }

  void message(String message) {
    status.setMessage(message);
  }

  /** Sets a condition, keeping its transition time when its status did not change. */
  void condition(String type, boolean holds, String reason, String message) {
    status.setConditions(
        Conditions.with(status.getConditions(), type, holds, reason, message, generation(), now()));
  }

  void normal(String reason, String message) {
    events.add(() -> services.events().normal(resource, reason, message));
  }

  void warning(String reason, String message) {
    events.add(() -> services.events().warning(resource, reason, message));
  }

  /** Writes the status now when it changed, then records the Events of what it says. */
  void save() {
    status.setObservedGeneration(generation());
    if (!Serialization.asJson(status).equals(Serialization.asJson(resource.getStatus()))) {
      resource = writer.write(resource, Serialization.clone(status));
    }
    events.forEach(Runnable::run);
    events.clear();
  }

  /** The StorageBackend of the class's provisioner, if the class exists and names one. */
  Optional<String> backend() {
    VolumeReplicationClass found =
        services
            .client()
            .resources(VolumeReplicationClass.class)
            .withName(resource.getSpec().getVolumeReplicationClass())
            .get();
    return found == null || found.getSpec() == null
        ? Optional.empty()
        : BackendNames.backendOfDriver(found.getSpec().getProvisioner());
  }

  long generation() {
    Long generation = resource.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }
}
