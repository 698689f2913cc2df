package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
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
    // The other driver's class first: one StorageClass informer delivers in order, so once the
    // backend's PVC is scheduled the ceph class's event has been mapped too.
    storageClass("ceph", "rbd.csi.ceph.com", Map.of());
    backend(1, "10m");
    storageClass(BACKEND, BackendNames.driver(BACKEND), Map.of());
    PersistentVolumeClaim mineClaim =
        boundClaim(APPS, "mine", BACKEND, "vol-1", "node-a", BackendNames.driver(BACKEND));
    PersistentVolumeClaim theirsClaim =
        boundClaim(APPS, "theirs", "ceph", "vol-2", "node-a", "rbd.csi.ceph.com");
    // A claim is created, then bound: wait for the reconcile of its bound version, not just its
    // first, or the second lands after the count below is taken.
    await(
        "both PVCs reconciled as bound and the backend's on its schedule",
        () ->
            reconciledAt(mineClaim)
                && reconciledAt(theirsClaim)
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

  private boolean reconciledAt(PersistentVolumeClaim claim) {
    return claim
        .getMetadata()
        .getResourceVersion()
        .equals(reconciles.lastVersion(PVC, APPS, claim.getMetadata().getName()));
  }
}
