package io.thinvol.operator;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;

/** How a backend's status is compared and written, the same way from reconcile and deletion. */
final class BackendStatusWrites {

  private BackendStatusWrites() {}

  /**
   * Replaces the status (optimistic locking, retried on conflict) and puts the result in the cache
   * at once: the next reconcile, often triggered before the informer catches up, must compare
   * against what was written, or a field removed here (a cleared node problem) would stay.
   */
  static void write(
      StorageBackend backend, StorageBackendStatus status, Context<StorageBackend> context) {
    PrimaryUpdateAndCacheUtils.updateStatusAndCacheResource(
        backend,
        context,
        fresh -> {
          fresh.setStatus(status);
          return fresh;
        });
  }

  // Conditions keep their transition times, so equal content means nothing changed to write.
  static boolean same(StorageBackendStatus current, StorageBackendStatus next) {
    return current != null && Serialization.asJson(current).equals(Serialization.asJson(next));
  }
}
