package io.thinvol.operator.move;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeMoveSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The objects a move makes, as pure functions of the move and what it moves. */
class MoveObjectsTest {

  static final String UID = "6f1d2a0e-1111-2222-3333-444455556666";

  static MoveNames names() {
    VolumeMove move = new VolumeMove();
    move.getMetadata().setName("to-b");
    move.getMetadata().setNamespace("apps");
    move.getMetadata().setUid(UID);
    VolumeMoveSpec spec = new VolumeMoveSpec();
    spec.setPersistentVolumeClaim("data");
    move.setSpec(spec);
    return new MoveNames(move);
  }

  static PersistentVolume old() {
    return new PersistentVolumeBuilder(
            ClusterFixtures.volume(
                "pv-data", "local.thinvol.io", "vol-a", "node-a", "apps", "data"))
        .editSpec()
        .withPersistentVolumeReclaimPolicy("Retain")
        .withStorageClassName("local")
        .withMountOptions("noatime")
        .editCsi()
        .withVolumeAttributes(Map.of("ioMode", "direct"))
        .endCsi()
        .editClaimRef()
        .withUid("claim-uid")
        .withResourceVersion("7")
        .endClaimRef()
        .endSpec()
        .build();
  }

  static PersistentVolumeClaim claim() {
    return new PersistentVolumeClaimBuilder(
            ClusterFixtures.boundClaim("apps", "data", "local", "pv-data"))
        .editMetadata()
        .withUid("claim-uid")
        .withResourceVersion("7")
        .withLabels(Map.of("app", "web"))
        .withAnnotations(
            Map.of(
                "pv.kubernetes.io/bind-completed", "yes",
                "pv.kubernetes.io/bound-by-controller", "yes",
                "volume.kubernetes.io/selected-node", "node-a",
                "example.com/owner", "web team"))
        .addNewOwnerReference()
        .withApiVersion("apps/v1")
        .withKind("StatefulSet")
        .withName("web")
        .withUid("sts-uid")
        .endOwnerReference()
        .endMetadata()
        .build();
  }

  @Test
  void namesComeFromTheMoveAlone() {
    MoveNames names = names();
    assertThat(names.preSnapshot()).isEqualTo("thinvol-move-6f1d2a0e-pre");
    assertThat(names.baseClaim()).isEqualTo("thinvol-move-6f1d2a0e-base");
    assertThat(names.cut()).isEqualTo("thinvol-move-6f1d2a0e-cut");
    assertThat(names.window()).isEqualTo("thinvol-move-6f1d2a0e");
    assertThat(names.newVolume()).isEqualTo("thinvol-move-" + UID);
  }

  @Test
  void theNewVolumeIsTheOldOnesSpecOnTheTarget() {
    PersistentVolume moved =
        VolumeObjects.moved(names(), old(), "vol-b", 2L << 30, "node-b", "Retain");
    assertThat(moved.getMetadata().getName()).isEqualTo("thinvol-move-" + UID);
    assertThat(moved.getMetadata().getAnnotations())
        .containsEntry("pv.kubernetes.io/provisioned-by", "local.thinvol.io");
    assertThat(moved.getSpec().getCsi().getVolumeHandle()).isEqualTo("vol-b");
    assertThat(moved.getSpec().getCsi().getVolumeAttributes()).containsEntry("ioMode", "direct");
    assertThat(moved.getSpec().getMountOptions()).containsExactly("noatime");
    assertThat(moved.getSpec().getCapacity().get("storage"))
        .as("the copy is larger than the old capacity")
        .isEqualTo(new Quantity(String.valueOf(2L << 30)));
    assertThat(VolumeNodes.of(moved)).containsExactly("node-b");
    assertThat(moved.getSpec().getClaimRef().getName()).isEqualTo("data");
    assertThat(moved.getSpec().getClaimRef().getUid()).isNull();
    assertThat(moved.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Retain");
    assertThat(
            VolumeObjects.moved(names(), old(), "vol-b", 1, "node-b", "Delete")
                .getSpec()
                .getCapacity()
                .get("storage"))
        .isEqualTo(new Quantity("1Gi"));
    assertThat(old().getSpec().getCsi().getVolumeHandle())
        .as("the old spec unchanged")
        .isEqualTo("vol-a");
  }

  @Test
  void aDiscardedVolumeIsBoundToNoClaimAndDeleted() {
    PersistentVolume discarded = VolumeObjects.discarded(names(), old(), "vol-b", "node-b");
    assertThat(discarded.getSpec().getPersistentVolumeReclaimPolicy()).isEqualTo("Delete");
    assertThat(discarded.getSpec().getClaimRef().getName()).isEqualTo("thinvol-move-6f1d2a0e-cut");
    assertThat(discarded.getSpec().getClaimRef().getUid()).endsWith("6f1d2a0e");
  }

  @Test
  void theClaimIsRecreatedWithoutItsOldBinding() {
    SavedClaim saved = Serialization.unmarshal(SavedClaim.of(claim()).json(), SavedClaim.class);
    PersistentVolumeClaim recreated =
        ClaimObjects.recreated(names(), "to-b", saved, "thinvol-move-" + UID);
    assertThat(recreated.getMetadata().getName()).isEqualTo("data");
    assertThat(recreated.getMetadata().getUid()).isNull();
    assertThat(recreated.getMetadata().getResourceVersion()).isNull();
    assertThat(recreated.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(recreated.getMetadata().getAnnotations())
        .containsOnly(
            Map.entry("example.com/owner", "web team"), Map.entry("thinvol.io/moved-by", "to-b"));
    assertThat(recreated.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("web"));
    assertThat(recreated.getSpec().getVolumeName()).isEqualTo("thinvol-move-" + UID);
    assertThat(recreated.getSpec().getStorageClassName()).isEqualTo("local");
    assertThat(recreated.getStatus()).isNull();
  }

  @Test
  void theBaseAndEntitlementClaimsCopyTheClaimsShape() {
    PersistentVolumeClaim base = ClaimObjects.base(names(), claim(), "node-b");
    assertThat(base.getMetadata().getAnnotations())
        .containsEntry("volume.kubernetes.io/selected-node", "node-b");
    assertThat(base.getMetadata().getLabels()).containsEntry("thinvol.io/volume-move", "to-b");
    assertThat(base.getSpec().getDataSource().getName()).isEqualTo("thinvol-move-6f1d2a0e-pre");
    assertThat(base.getSpec().getVolumeName()).isNull();
    PersistentVolumeClaim entitled = ClaimObjects.entitlement(names(), SavedClaim.of(claim()));
    assertThat(entitled.getSpec().getDataSource().getName()).isEqualTo("thinvol-move-6f1d2a0e-cut");
    assertThat(entitled.getSpec().getVolumeName()).isEqualTo("thinvol-move-" + UID);
    assertThat(entitled.getSpec().getResources()).isEqualTo(claim().getSpec().getResources());
  }

  @Test
  void theWindowLetsOnlyTheOperatorsMarkedCreateThrough() {
    ValidatingAdmissionPolicy policy =
        CutOverWindow.policy(
            names(), "to-b", "system:serviceaccount:thinvol-system:thinvol-operator");
    assertThat(policy.getSpec().getMatchConstraints().getResourceRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getOperations()).containsExactly("CREATE");
              assertThat(r.getResources()).containsExactly("persistentvolumeclaims");
            });
    assertThat(policy.getSpec().getMatchConditions().get(0).getExpression())
        .isEqualTo("request.namespace == 'apps' && object.metadata.name == 'data'");
    assertThat(policy.getSpec().getValidations().get(0).getExpression())
        .contains("'system:serviceaccount:thinvol-system:thinvol-operator'")
        .contains("object.metadata.annotations['thinvol.io/moved-by'] == 'to-b'");
    assertThat(policy.getSpec().getValidations().get(0).getReason()).isEqualTo("Forbidden");
    assertThat(CutOverWindow.binding(names()).getSpec().getValidationActions())
        .containsExactly("Deny");
  }

  @Test
  void theOldVolumeIsHeldAndReleasedByMergePatches() {
    assertThat(VolumeObjects.holdPatch(names(), SavedClaim.of(claim())))
        .contains("\"persistentVolumeReclaimPolicy\":\"Retain\"")
        .contains("\"thinvol.io/volume-move\":\"apps/to-b\"");
    assertThat(VolumeObjects.releasePatch("Delete"))
        .contains("\"persistentVolumeReclaimPolicy\":\"Delete\"")
        .contains("\"thinvol.io/volume-move\":null");
    assertThat(VolumeObjects.reopenPatch()).contains("\"uid\":null");
  }
}
