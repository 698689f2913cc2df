package io.thinvol.operator;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.Topology;
import csi.v1.TopologyRequirement;
import csi.v1.Volume;
import csi.v1.VolumeContentSource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TypedLocalObjectReference;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.api.BackendNames;
import io.thinvol.api.kube.VolumeNodes;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.testing.PlayedControllers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The external-provisioner of one node ({@code --node-deployment --extra-create-metadata}), played
 * against the node's real driver: a claim of the driver's StorageClass whose selected node is this
 * one gets a volume from CreateVolume (named {@code pvc-<claim uid>}, the claim's size, the class's
 * filesystem and parameters, the claim's name and namespace, this node's topology, the claim's data
 * source as its content source) and a PersistentVolume pinned where the driver says it is, bound to
 * the claim. A Released volume of this node with policy Delete is deleted by DeleteVolume, then its
 * PersistentVolume.
 */
record PlayedProvisioner(KubernetesClient client, NodeDriver node, String driver) {

  static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
  private static final String FSTYPE = "csi.storage.k8s.io/fstype";

  /** One pass over every claim and volume, as after a resync. */
  void pass() {
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      if (claim.getMetadata().getDeletionTimestamp() == null
          && claim.getSpec().getVolumeName() == null
          && node.node().equals(claim.getMetadata().getAnnotations().get(SELECTED_NODE))) {
        Optional.ofNullable(claim.getSpec().getStorageClassName())
            .map(name -> client.storage().v1().storageClasses().withName(name).get())
            .filter(storageClass -> driver.equals(storageClass.getProvisioner()))
            .ifPresent(storageClass -> provision(claim, storageClass));
      }
    }
    for (PersistentVolume volume : client.persistentVolumes().list().getItems()) {
      if (volume.getMetadata().getDeletionTimestamp() == null
          && "Released".equals(volume.getStatus().getPhase())
          && "Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())
          && volume.getSpec().getCsi() != null
          && driver.equals(volume.getSpec().getCsi().getDriver())
          && VolumeNodes.of(volume).equals(List.of(node.node()))) {
        node.csi().deleteVolume(volume.getSpec().getCsi().getVolumeHandle());
        PlayedControllers.deleteUnused(client, volume);
      }
    }
  }

  private void provision(PersistentVolumeClaim claim, StorageClass storageClass) {
    Optional<VolumeContentSource> source = contentSource(claim);
    if (claim.getSpec().getDataSource() != null && source.isEmpty()) {
      return; // the source is not ready yet: the provisioner waits
    }
    String name = "pvc-" + claim.getMetadata().getUid();
    Map<String, String> parameters = new HashMap<>(storageClass.getParameters());
    String fsType = parameters.remove(FSTYPE);
    parameters.put("csi.storage.k8s.io/pvc/name", claim.getMetadata().getName());
    parameters.put("csi.storage.k8s.io/pvc/namespace", claim.getMetadata().getNamespace());
    parameters.put("csi.storage.k8s.io/pv/name", name);
    Topology here =
        Topology.newBuilder().putSegments(BackendNames.TOPOLOGY_KEY, node.node()).build();
    Quantity size = claim.getSpec().getResources().getRequests().get("storage");
    CreateVolumeRequest.Builder request =
        CreateVolumeRequest.newBuilder()
            .setName(name)
            .setCapacityRange(
                CapacityRange.newBuilder()
                    .setRequiredBytes(size.getNumericalAmount().longValueExact()))
            .addVolumeCapabilities(
                "Block".equals(claim.getSpec().getVolumeMode())
                    ? Capabilities.block()
                    : Capabilities.mount(fsType))
            .putAllParameters(parameters)
            .setAccessibilityRequirements(
                TopologyRequirement.newBuilder().addRequisite(here).addPreferred(here));
    source.ifPresent(request::setVolumeContentSource);
    Volume made = node.csi().controller().createVolume(request.build()).getVolume();
    PersistentVolume volume = client.persistentVolumes().withName(name).get();
    if (volume == null) {
      volume = client.resource(volumeFor(claim, storageClass, fsType, name, made)).create();
    }
    PlayedControllers.bind(client, volume, claim);
  }

  private PersistentVolume volumeFor(
      PersistentVolumeClaim claim,
      StorageClass storageClass,
      String fsType,
      String name,
      Volume made) {
    String madeOn =
        made.getAccessibleTopologyCount() == 0
            ? node.node()
            : made.getAccessibleTopology(0).getSegmentsOrThrow(BackendNames.TOPOLOGY_KEY);
    String namespace = claim.getMetadata().getNamespace();
    String claimName = claim.getMetadata().getName();
    return new PersistentVolumeBuilder(
            ClusterFixtures.volume(name, driver, made.getVolumeId(), madeOn, namespace, claimName))
        .withStatus(null)
        .editMetadata()
        .addToAnnotations("pv.kubernetes.io/provisioned-by", driver)
        .endMetadata()
        .editSpec()
        .withCapacity(Map.of("storage", new Quantity(String.valueOf(made.getCapacityBytes()))))
        .withAccessModes(claim.getSpec().getAccessModes())
        .withVolumeMode(claim.getSpec().getVolumeMode())
        .withStorageClassName(storageClass.getMetadata().getName())
        .withPersistentVolumeReclaimPolicy(storageClass.getReclaimPolicy())
        .withMountOptions(storageClass.getMountOptions())
        .editCsi()
        .withFsType(fsType)
        .withVolumeAttributes(made.getVolumeContextMap())
        .endCsi()
        .editClaimRef()
        .withKind("PersistentVolumeClaim")
        .withApiVersion("v1")
        .withUid(claim.getMetadata().getUid())
        .endClaimRef()
        .endSpec()
        .build();
  }

  /** The claim's data source as CSI names it; empty when there is none or it is not ready. */
  private Optional<VolumeContentSource> contentSource(PersistentVolumeClaim claim) {
    TypedLocalObjectReference source = claim.getSpec().getDataSource();
    if (source == null) {
      return Optional.empty();
    }
    String namespace = claim.getMetadata().getNamespace();
    if ("VolumeSnapshot".equals(source.getKind())) {
      GenericKubernetesResource snapshot =
          NodeSnapshotter.objects(client, "VolumeSnapshot")
              .inNamespace(namespace)
              .withName(source.getName())
              .get();
      var status = snapshot == null ? null : tree(snapshot).path("status");
      if (status == null || !status.path("readyToUse").asBoolean(false)) {
        return Optional.empty();
      }
      GenericKubernetesResource content =
          NodeSnapshotter.objects(client, "VolumeSnapshotContent")
              .withName(status.path("boundVolumeSnapshotContentName").asText())
              .get();
      return Optional.of(
          VolumeContentSource.newBuilder()
              .setSnapshot(
                  VolumeContentSource.SnapshotSource.newBuilder()
                      .setSnapshotId(tree(content).at("/status/snapshotHandle").asText()))
              .build());
    }
    PersistentVolumeClaim origin =
        client.persistentVolumeClaims().inNamespace(namespace).withName(source.getName()).get();
    if (origin == null || origin.getSpec().getVolumeName() == null) {
      return Optional.empty();
    }
    PersistentVolume volume =
        client.persistentVolumes().withName(origin.getSpec().getVolumeName()).get();
    return Optional.of(
        VolumeContentSource.newBuilder()
            .setVolume(
                VolumeContentSource.VolumeSource.newBuilder()
                    .setVolumeId(volume.getSpec().getCsi().getVolumeHandle()))
            .build());
  }

  private static com.fasterxml.jackson.databind.JsonNode tree(GenericKubernetesResource object) {
    return Serialization.jsonMapper().valueToTree(object);
  }
}
