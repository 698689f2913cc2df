package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.StorageClassSpec;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.operator.model.VolumeSnapshotClass;
import io.thinvol.testing.ApiRequest;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Changes the API server would refuse to apply as patches, and specs that cannot be deployed at
 * all.
 */
class SpecChangesTest extends MockClusterTest {

  @Test
  @DisplayName("A change to an immutable StorageClass field recreates the class")
  void immutableChangeRecreates() {
    apply("metadata:\n  name: fast\nspec:\n  storageClasses:\n  - name: fast\n");
    StorageClass original = clusterScoped(StorageClass.class, "fast");
    assertThat(original.getReclaimPolicy()).isEqualTo("Delete");

    editSpec(
        "fast",
        spec ->
            spec.getStorageClasses()
                .get(0)
                .setReclaimPolicy(StorageClassSpec.ReclaimPolicy.Retain));

    StorageClass recreated =
        await(
            "a recreated StorageClass",
            () -> {
              StorageClass now = client.storage().v1().storageClasses().withName("fast").get();
              return now != null && "Retain".equals(now.getReclaimPolicy()) ? now : null;
            });
    assertThat(recreated.getMetadata().getUid()).isNotEqualTo(original.getMetadata().getUid());
    assertThat(recreated.getProvisioner()).isEqualTo("fast.thinvol.io");
  }

  @Test
  @DisplayName("A StorageClass that is not the backend's refuses it: condition, Event, no writes")
  void foreignClassRefuses() throws InterruptedException {
    client
        .resource(
            new StorageClassBuilder()
                .withNewMetadata()
                .withName("standard")
                .endMetadata()
                .withProvisioner("ebs.csi.aws.com")
                .build())
        .create();
    apply("metadata:\n  name: clash\nspec:\n  storageClasses:\n  - name: standard\n");

    StorageBackend refused =
        await(
            "Degraded=True/StorageClassConflict",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("clash").get();
              return now.getStatus() != null && StatusModel.isDegraded(now.getStatus())
                  ? now
                  : null;
            });
    assertThat(refused.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .containsExactlyInAnyOrder(
            "Ready=False/StorageClassConflict",
            "Progressing=False/StorageClassConflict",
            "Degraded=True/StorageClassConflict");
    assertThat(StatusModel.message(refused.getStatus(), StatusModel.DEGRADED))
        .startsWith("StorageClass standard already exists (provisioner ebs.csi.aws.com)");
    await("a Degraded Event", () -> eventReasons("clash").contains("Degraded"));

    // Nothing half-deployed, the other class untouched, and no retry loop writing status.
    Thread.sleep(300); // the refusing reconcile's own writes
    drainRequests();
    Thread.sleep(2500); // longer than the first retry of a failed reconcile
    List<ApiRequest> later = drainRequests();
    assertThat(
            client
                .resources(DaemonSet.class)
                .inNamespace(NAMESPACE)
                .withName("thinvol-clash-node")
                .get())
        .isNull();
    assertThat(client.resources(CSIDriver.class).withName("clash.thinvol.io").get()).isNull();
    assertThat(client.storage().v1().storageClasses().withName("standard").get().getProvisioner())
        .isEqualTo("ebs.csi.aws.com");
    assertThat(
            later.stream()
                .filter(r -> !r.verb().matches("get|list|watch"))
                .filter(r -> !r.resource().equals("leases")) // leader election renews its lease
                .toList())
        .isEmpty();

    editSpec("clash", spec -> spec.getStorageClasses().get(0).setName("clash"));
    assertThat(clusterScoped(StorageClass.class, "clash").getProvisioner())
        .isEqualTo("clash.thinvol.io");
    namespaced(DaemonSet.class, "thinvol-clash-node");
  }

  @Test
  @DisplayName("A spec the schema let through but that cannot work is refused; nothing is deployed")
  void invalidSpecRefused() {
    // As stored before the CRD's rules existed.
    applyUnvalidated(
        """
        metadata:
          name: twice
        spec:
          sparseFile:
            dataDir: /var/lib/../../etc
          storageClasses:
          - name: a
          - name: a
        """);
    StorageBackend refused =
        await(
            "Degraded=True/InvalidSpec",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("twice").get();
              return now.getStatus() != null && StatusModel.isDegraded(now.getStatus())
                  ? now
                  : null;
            });
    assertThat(refused.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .contains("Ready=False/InvalidSpec", "Degraded=True/InvalidSpec");
    assertThat(StatusModel.message(refused.getStatus(), StatusModel.DEGRADED))
        .isEqualTo(
            "spec.sparseFile.dataDir must be an absolute path without '..': /var/lib/../../etc;"
                + " StorageClass a is listed twice");
    assertThat(client.resources(CSIDriver.class).withName("twice.thinvol.io").get()).isNull();
    assertThat(client.storage().v1().storageClasses().withName("a").get()).isNull();
  }

  @Test
  @DisplayName("Turning volumeSnapshotClass off deletes the class and leaves the rest")
  void snapshotClassToggles() {
    apply("metadata:\n  name: snap\nspec:\n  volumeSnapshotClass: true\n");
    clusterScoped(VolumeSnapshotClass.class, "snap");

    editSpec("snap", spec -> spec.setVolumeSnapshotClass(false));
    await(
        "the VolumeSnapshotClass to go",
        () -> client.resources(VolumeSnapshotClass.class).withName("snap").get() == null);
    assertThat(client.storage().v1().storageClasses().withName("snap").get())
        .as("the rest stays")
        .isNotNull();
  }
}
