package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.ArrayList;
import java.util.List;

/** The CSI sidecars of the node pod, each on the driver's socket. */
final class NodeSidecars {

  private NodeSidecars() {}

  static Container registrar(StorageBackend backend, Effective effective, Images images) {
    return sidecar("node-driver-registrar", images.nodeDriverRegistrar())
        .withArgs(
            "--csi-address=" + NodeDaemonSetModel.SOCKET,
            "--kubelet-registration-path="
                + effective.kubeletDir()
                + "/plugins/"
                + Names.driver(backend)
                + "/csi.sock",
            "--http-endpoint=:" + NodeDaemonSetModel.REGISTRAR_PORT)
        .addNewPort()
        .withName("registrar")
        .withContainerPort(NodeDaemonSetModel.REGISTRAR_PORT)
        .withProtocol("TCP")
        .endPort()
        .withLivenessProbe(ContainerParts.httpProbe("/healthz", "registrar", 5))
        .withVolumeMounts(
            ContainerParts.mount("socket-dir", "/csi", null),
            ContainerParts.mount("registration-dir", "/registration", null))
        .build();
  }

  static Container provisioner(Effective effective, Images images) {
    return sidecar("csi-provisioner", images.provisioner())
        .withArgs(
            "--csi-address=" + NodeDaemonSetModel.SOCKET,
            "--node-deployment=true",
            "--strict-topology=true",
            "--immediate-topology=false",
            "--enable-capacity=true",
            "--capacity-ownerref-level=" + CapacityOwner.OWNERREF_LEVEL,
            "--extra-create-metadata=true",
            "--default-fstype=" + effective.filesystem(),
            "--timeout=120s",
            "--worker-threads=5")
        .withEnv(
            ContainerParts.fieldEnv("NODE_NAME", "spec.nodeName"),
            ContainerParts.fieldEnv("NAMESPACE", "metadata.namespace"),
            ContainerParts.fieldEnv("POD_NAME", "metadata.name"))
        .withVolumeMounts(ContainerParts.mount("socket-dir", "/csi", null))
        .build();
  }

  /**
   * One active resizer (leader-elected): it only records new sizes, nodes do the growing. Its
   * ModifyVolume (VolumeAttributesClass) is on by default from v2.0; the gate keeps it on with an
   * older image set in spec.images.
   */
  static Container resizer(Images images) {
    return sidecar("csi-resizer", images.resizer())
        .withArgs(
            "--csi-address=" + NodeDaemonSetModel.SOCKET,
            "--leader-election=true",
            "--leader-election-namespace=$(NAMESPACE)",
            "--handle-volume-inuse-error=false",
            "--feature-gates=VolumeAttributesClass=true",
            "--timeout=120s")
        .withEnv(ContainerParts.fieldEnv("NAMESPACE", "metadata.namespace"))
        .withVolumeMounts(ContainerParts.mount("socket-dir", "/csi", null))
        .build();
  }

  static Container snapshotter(Images images, boolean groupSnapshots) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--csi-address=" + NodeDaemonSetModel.SOCKET,
                "--node-deployment=true",
                "--extra-create-metadata=true",
                "--timeout=300s"));
    if (groupSnapshots) {
      args.add(GroupSnapshotModel.FEATURE_GATE);
    }
    return sidecar("csi-snapshotter", images.snapshotter())
        .withArgs(args)
        .withEnv(ContainerParts.fieldEnv("NODE_NAME", "spec.nodeName"))
        .withVolumeMounts(ContainerParts.mount("socket-dir", "/csi", null))
        .build();
  }

  static Container livenessProbe(Images images) {
    return sidecar("liveness-probe", images.livenessProbe())
        .withArgs(
            "--csi-address=" + NodeDaemonSetModel.SOCKET,
            "--health-port=" + NodeDaemonSetModel.HEALTH_PORT)
        .withVolumeMounts(ContainerParts.mount("socket-dir", "/csi", null))
        .build();
  }

  /**
   * A sidecar talks to the driver's socket, which the privileged (unconfined) driver creates: on an
   * SELinux-enforcing node a confined container_t process is denied it, so every sidecar runs as
   * {@value SocketSharing#UNCONFINED_TYPE} (see {@link SocketSharing}).
   */
  private static ContainerBuilder sidecar(String name, String image) {
    return new ContainerBuilder()
        .withName(name)
        .withImage(image)
        .withSecurityContext(SocketSharing.securityContext());
  }
}
