package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageBackendStatus;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A StorageBackend's events reach only the PVCs of its own StorageClasses, and only when its spec
 * changes: its reconciler writes its status all the time, and a big cluster has many PVCs.
 */
class BackendEventsTest extends AddonsClusterTest {

  private static final String PVC = "PersistentVolumeClaim";

  private final FakeDriver driver = new FakeDriver();

  @Override
  ReclaimCaller caller() {
    return driver;
  }

  @AfterEach
  void closeDriver() {
    driver.close();
  }

  @Test
  void statusWritesReconcileNoPvcAndASpecChangeOnlyThoseOfItsClasses() {
    backend(1, "10m");
    storageClass(BACKEND, BackendNames.driver(BACKEND), Map.of());
    storageClass("ceph", "rbd.csi.ceph.com", Map.of());
    boundClaim(APPS, "mine", BACKEND, "vol-1", "node-a", BackendNames.driver(BACKEND));
    boundClaim(APPS, "theirs", "ceph", "vol-2", "node-a", "rbd.csi.ceph.com");
    await(
        "both PVCs reconciled and the backend's on its schedule",
        () ->
            reconciles.of(PVC, APPS, "theirs") > 0
                && addons
                    .metrics()
                    .render()
                    .contains("thinvol_reclaimspace_scheduled_volumes 1\n"));
    int mine = reconciles.of(PVC, APPS, "mine");
    int theirs = reconciles.of(PVC, APPS, "theirs");

    for (long generation = 1; generation <= 3; generation++) {
      long observed = generation;
      client
          .resources(StorageBackend.class)
          .withName(BACKEND)
          .editStatus(
              b -> {
                b.setStatus(new StorageBackendStatus());
                b.getStatus().setObservedGeneration(observed);
                return b;
              });
    }
    merge(
        StorageBackend.class,
        null,
        BACKEND,
        "{\"spec\":{\"reclaimSpace\":{\"schedule\":\"@daily\"}}}");
    await(
        "the new schedule taken by the backend's PVC",
        () -> eventReasons(APPS, "mine").contains("ReclaimScheduled"));

    assertThat(reconciles.of(PVC, APPS, "mine") - mine)
        .as("reconciles of the backend's PVC: its spec change only, not its status writes")
        .isEqualTo(1);
    assertThat(reconciles.of(PVC, APPS, "theirs") - theirs)
        .as("reconciles of another driver's PVC")
        .isZero();
  }
}
