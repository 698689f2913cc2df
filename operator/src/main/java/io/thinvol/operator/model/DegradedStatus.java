package io.thinvol.operator.model;

import static io.thinvol.operator.model.StatusModel.DEGRADED;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A backend's status with Degraded True for a reason beyond its nodes ({@link StatusModel} judges
 * those): a failed reconcile, a deletion that waits, controllers that wait for a CRD. Only the
 * Degraded condition changes; the others say what is still known of the nodes.
 */
public final class DegradedStatus {

  /** The reason of controllers waiting for a CRD the cluster lacks ({@link #crdMissing}). */
  private static final String CRD_MISSING = "CrdMissing";

  private DegradedStatus() {}

  /**
   * {@code status} of a backend whose driver works while controllers wait for a CRD the cluster
   * lacks: Degraded with {@link #CRD_MISSING} and {@code message}, which says what to install,
   * unless the backend is Degraded for a reason of its own (which a person sees first).
   */
  public static StorageBackendStatus crdMissing(
      StorageBackend backend, StorageBackendStatus status, String message, Instant now) {
    if (StatusModel.isDegraded(status)) {
      return status;
    }
    return withDegraded(
        Serialization.clone(status),
        StatusModel.previousConditions(backend),
        CRD_MISSING,
        message,
        backend,
        now);
  }

  /** The status of a backend whose deletion waits for volumes that still use it. */
  public static StorageBackendStatus deletionBlocked(
      StorageBackend backend, String message, Instant now) {
    return lastKnown(backend, "DeletionBlocked", message, now);
  }

  /**
   * The status of a backend whose reconcile failed: Degraded with the reason; the other conditions
   * stay as last known, since the failure says nothing about the nodes.
   */
  public static StorageBackendStatus failed(
      StorageBackend backend, ReconcileFailure failure, Instant now) {
    return lastKnown(backend, failure.reason(), failure.message(), now);
  }

  /** The backend's last written status, Degraded for {@code reason}. */
  private static StorageBackendStatus lastKnown(
      StorageBackend backend, String reason, String message, Instant now) {
    StorageBackendStatus status =
        Optional.ofNullable(backend.getStatus())
            .map(Serialization::clone)
            .orElseGet(() -> StatusModel.fresh(backend));
    return withDegraded(status, status.getConditions(), reason, message, backend, now);
  }

  /** {@code status} with its Degraded condition replaced by a True one; the others as they are. */
  private static StorageBackendStatus withDegraded(
      StorageBackendStatus status,
      List<Condition> previous,
      String reason,
      String message,
      StorageBackend backend,
      Instant now) {
    List<Condition> conditions = new ArrayList<>();
    for (Condition condition : status.getConditions()) {
      if (!DEGRADED.equals(condition.getType())) {
        conditions.add(condition);
      }
    }
    conditions.add(
        Conditions.of(
            previous, DEGRADED, "True", reason, message, StatusModel.generation(backend), now));
    status.setConditions(conditions);
    return status;
  }
}
