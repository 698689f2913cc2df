package io.thinvol.operator.move;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One move as a reconcile works on it: the resource, the status being written, and the Events to
 * record once that status is saved (so {@code kubectl describe} never shows an Event the status
 * does not back).
 */
final class Move {

  private final MoveServices services;
  private final StatusWriter writer;
  private final List<Runnable> events = new ArrayList<>();
  private VolumeMove resource;
  private final VolumeMoveStatus status;
  private final MoveNames names;
  private String held;

  /** Writes a move's status; answers the move as stored. */
  interface StatusWriter {
    VolumeMove write(VolumeMove move, VolumeMoveStatus status);
  }

  Move(MoveServices services, VolumeMove resource, StatusWriter writer) {
    this.services = services;
    this.writer = writer;
    this.resource = resource;
    this.status = MoveStatusModel.copy(resource);
    this.names = new MoveNames(resource);
  }

  MoveServices services() {
    return services;
  }

  MoveCluster cluster() {
    return services.cluster();
  }

  VolumeMove resource() {
    return resource;
  }

  VolumeMoveStatus status() {
    return status;
  }

  MoveNames names() {
    return names;
  }

  String name() {
    return resource.getMetadata().getName();
  }

  Instant now() {
    return services.clock().instant();
  }

  MovePhase phase() {
    return status.getPhase() == null ? MovePhase.Pending : status.getPhase();
  }

  /** Moves to a phase with the message that says what it does or waits for. */
  void phase(MovePhase phase, String message) {
    status.setPhase(phase);
    message(message);
  }

  void message(String message) {
    status.setMessage(held == null ? message : held);
  }

  /**
   * The message for the rest of this step, whatever it says it does: a cut-over that goes on while
   * a node is NotReady says when it rolls back, not which call it tries again.
   */
  void holdMessage(String message) {
    held = message;
    status.setMessage(message);
  }

  /** Each step, and a failure, says its own message again. */
  void releaseMessage() {
    held = null;
  }

  void condition(String type, boolean holds, String reason, String message) {
    MoveStatusModel.condition(status, generation(), now(), type, holds, reason, message);
  }

  void normal(String reason, String message) {
    events.add(() -> services.events().normal(resource, reason, message));
  }

  void warning(String reason, String message) {
    events.add(() -> services.events().warning(resource, reason, message));
  }

  /**
   * Writes the status now (a step saves before an act that a restart must know of), then records
   * the Events of what it says.
   */
  void save() {
    status.setObservedGeneration(generation());
    if (!Serialization.asJson(status).equals(Serialization.asJson(resource.getStatus()))) {
      resource = writer.write(resource, Serialization.clone(status));
    }
    events.forEach(Runnable::run);
    events.clear();
  }

  private long generation() {
    Long generation = resource.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }
}
