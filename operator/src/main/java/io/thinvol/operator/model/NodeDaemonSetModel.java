package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node plugin: on every selected node the driver (Identity, Controller, Node and CSI-Addons in
 * one process) with node-driver-registrar, external-provisioner in node-deployment mode with
 * capacity tracking, external-snapshotter in node-deployment mode, one leader-elected
 * external-resizer (the driver grows images on their own node, --expansion=node) and livenessprobe.
 * Rolls one node at a time.
 */
public final class NodeDaemonSetModel {

  static final String SOCKET = "/csi/csi.sock";
  static final int ADDONS_PORT = BackendNames.ADDONS_PORT;
  static final int HTTP_PORT = 9808;

  /** The name of the driver's health and metrics port, which the PodMonitors scrape. */
  public static final String HTTP_PORT_NAME = "http";

  static final int HEALTH_PORT = 9898;
  static final int REGISTRAR_PORT = 9809;
  static final String TLS_DIR = "/etc/thinvol/tls";

  private NodeDaemonSetModel() {}

  /**
   * @param snapshots the cluster serves the VolumeSnapshot API (the snapshotter runs only then)
   */
  public static DaemonSet desired(StorageBackend backend, Settings settings, boolean snapshots) {
    Effective effective = Effective.of(backend);
    Images images = Images.of(backend, settings);
    List<Container> containers = new ArrayList<>();
    containers.add(DriverContainer.of(backend, settings, effective, images));
    containers.add(NodeSidecars.registrar(backend, effective, images));
    containers.add(NodeSidecars.provisioner(effective, images));
    containers.add(NodeSidecars.resizer(images));
    if (snapshots) {
      containers.add(NodeSidecars.snapshotter(images, GroupSnapshotModel.deployed(settings)));
    }
    containers.add(NodeSidecars.livenessProbe(images));
    List<Volume> volumes = new ArrayList<>(volumes(backend, effective));
    volumes.add(PeerForwardingModel.tokenVolume(settings));
    if (snapshots && SnapshotMetadataModel.deployed(settings)) {
      containers.add(SnapshotMetadataModel.sidecar(images.snapshotMetadata()));
      volumes.add(SnapshotMetadataModel.tlsVolume());
    }
    containers.replaceAll(c -> SidecarResources.apply(backend, c));
    Map<String, String> nodeSelector = new TreeMap<>(effective.nodeSelector());
    nodeSelector.put("kubernetes.io/os", "linux");
    return new DaemonSetBuilder()
        .withMetadata(Names.namespaced(Names.nodeDaemonSet(backend), backend, settings))
        .withNewSpec()
        .withNewSelector()
        .withMatchLabels(Names.nodePodLabels(backend))
        .endSelector()
        .withRevisionHistoryLimit(5)
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxUnavailable(new IntOrString(1))
        .withMaxSurge(new IntOrString(0))
        .endRollingUpdate()
        .endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Names.nodePodLabels(backend))
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(Names.nodeServiceAccount(backend))
        .withPriorityClassName("system-node-critical")
        .withNodeSelector(nodeSelector)
        .withTolerations(effective.tolerations())
        .withImagePullSecrets(effective.imagePullSecrets())
        .withTerminationGracePeriodSeconds(30L)
        .withContainers(containers)
        .withVolumes(volumes)
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static List<Volume> volumes(StorageBackend backend, Effective effective) {
    String kubelet = effective.kubeletDir();
    return List.of(
        hostPath("socket-dir", kubelet + "/plugins/" + Names.driver(backend), "DirectoryOrCreate"),
        hostPath("registration-dir", kubelet + "/plugins_registry", "Directory"),
        hostPath("pods-dir", kubelet + "/pods", "Directory"),
        hostPath("plugins-dir", kubelet + "/plugins", "Directory"),
        hostPath("dev-dir", "/dev", "Directory"),
        hostPath("data-dir", effective.dataDir(), "DirectoryOrCreate"),
        new VolumeBuilder().withName("tmp").withNewEmptyDir().endEmptyDir().build(),
        new VolumeBuilder()
            .withName("addons-tls")
            .withNewSecret()
            .withSecretName(BackendNames.ADDONS_TLS_SECRET)
            .withDefaultMode(0400)
            .endSecret()
            .build());
  }

  private static Volume hostPath(String name, String path, String type) {
    return new VolumeBuilder().withName(name).withNewHostPath(path, type).build();
  }
}
