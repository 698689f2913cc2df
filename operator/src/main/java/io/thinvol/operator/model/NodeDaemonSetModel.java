package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
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
    containers.add(driver(backend, settings, effective, images));
    containers.add(registrar(backend, effective, images));
    containers.add(provisioner(effective, images));
    containers.add(resizer(images));
    if (snapshots) {
      containers.add(snapshotter(images, GroupSnapshotModel.deployed(settings)));
    }
    containers.add(livenessProbe(images));
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
        .withNewMetadata()
        .withName(Names.nodeDaemonSet(backend))
        .withNamespace(settings.namespace())
        .withLabels(Names.labels(backend))
        .endMetadata()
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

  private static Container driver(
      StorageBackend backend, Settings settings, Effective effective, Images images) {
    return new ContainerBuilder()
        .withName("driver")
        .withImage(images.driver())
        .withArgs(
            "driver",
            "--csi-endpoint=unix://" + SOCKET,
            "--addons-endpoint=unix:///csi/csi-addons.sock",
            "--addons-port=" + ADDONS_PORT,
            "--addons-tls-cert=" + TLS_DIR + "/tls.crt",
            "--addons-tls-key=" + TLS_DIR + "/tls.key",
            "--addons-token-audience=" + settings.addonsTokenAudience(),
            "--driver-name=" + Names.driver(backend),
            "--node-id=$(NODE_NAME)",
            "--data-dir=" + effective.dataDir(),
            DataDirMount.flag(backend),
            "--overprovision-ratio=" + effective.overprovisionRatio(),
            "--expansion=node",
            "--http-port=" + HTTP_PORT,
            "--log-level=" + effective.logLevel())
        .addAllToArgs(PeerForwardingModel.driverArgs(backend, settings))
        .withEnv(
            fieldEnv("NODE_NAME", "spec.nodeName"),
            fieldEnv("POD_NAMESPACE", "metadata.namespace"),
            fieldEnv("POD_NAME", "metadata.name"))
        .addNewPort()
        .withName(BackendNames.ADDONS_PORT_NAME)
        .withContainerPort(ADDONS_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(HTTP_PORT_NAME)
        .withContainerPort(HTTP_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName("healthz")
        .withContainerPort(HEALTH_PORT)
        .withProtocol("TCP")
        .endPort()
        .withNewSecurityContext()
        .withPrivileged(true)
        // The image runs as a non-root user for the operator; the driver needs root for
        // losetup, mkfs and mount.
        .withRunAsUser(0L)
        // Writes go to the mounts only; /tmp is for the native libraries Netty unpacks.
        .withReadOnlyRootFilesystem(true)
        .endSecurityContext()
        .withStartupProbe(startupProbe())
        .withLivenessProbe(httpProbe("/healthz", "healthz", 5))
        .withReadinessProbe(httpProbe("/readyz", HTTP_PORT_NAME, 3))
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("128Mi")))
        .withLimits(Map.of("memory", new Quantity("256Mi")))
        .endResources()
        .withVolumeMounts(
            mount("socket-dir", "/csi", null),
            mount("pods-dir", effective.kubeletDir() + "/pods", "Bidirectional"),
            mount("plugins-dir", effective.kubeletDir() + "/plugins", "Bidirectional"),
            mount("dev-dir", "/dev", null),
            DataDirMount.mount(effective),
            mount("tmp", "/tmp", null),
            new VolumeMountBuilder()
                .withName("addons-tls")
                .withMountPath(TLS_DIR)
                .withReadOnly(true)
                .build(),
            PeerForwardingModel.tokenMount())
        .build();
  }

  private static Container registrar(StorageBackend backend, Effective effective, Images images) {
    return sidecar("node-driver-registrar", images.nodeDriverRegistrar())
        .withArgs(
            "--csi-address=" + SOCKET,
            "--kubelet-registration-path="
                + effective.kubeletDir()
                + "/plugins/"
                + Names.driver(backend)
                + "/csi.sock",
            "--http-endpoint=:" + REGISTRAR_PORT)
        .addNewPort()
        .withName("registrar")
        .withContainerPort(REGISTRAR_PORT)
        .withProtocol("TCP")
        .endPort()
        .withLivenessProbe(httpProbe("/healthz", "registrar", 5))
        .withVolumeMounts(
            mount("socket-dir", "/csi", null), mount("registration-dir", "/registration", null))
        .build();
  }

  private static Container provisioner(Effective effective, Images images) {
    return sidecar("csi-provisioner", images.provisioner())
        .withArgs(
            "--csi-address=" + SOCKET,
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
            fieldEnv("NODE_NAME", "spec.nodeName"),
            fieldEnv("NAMESPACE", "metadata.namespace"),
            fieldEnv("POD_NAME", "metadata.name"))
        .withVolumeMounts(mount("socket-dir", "/csi", null))
        .build();
  }

  /**
   * One active resizer (leader-elected): it only records new sizes, nodes do the growing. Its
   * ModifyVolume (VolumeAttributesClass) is on by default from v2.0; the gate keeps it on with an
   * older image set in spec.images.
   */
  private static Container resizer(Images images) {
    return sidecar("csi-resizer", images.resizer())
        .withArgs(
            "--csi-address=" + SOCKET,
            "--leader-election=true",
            "--leader-election-namespace=$(NAMESPACE)",
            "--handle-volume-inuse-error=false",
            "--feature-gates=VolumeAttributesClass=true",
            "--timeout=120s")
        .withEnv(fieldEnv("NAMESPACE", "metadata.namespace"))
        .withVolumeMounts(mount("socket-dir", "/csi", null))
        .build();
  }

  private static Container snapshotter(Images images, boolean groupSnapshots) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--csi-address=" + SOCKET,
                "--node-deployment=true",
                "--extra-create-metadata=true",
                "--timeout=300s"));
    if (groupSnapshots) {
      args.add(GroupSnapshotModel.FEATURE_GATE);
    }
    return sidecar("csi-snapshotter", images.snapshotter())
        .withArgs(args)
        .withEnv(fieldEnv("NODE_NAME", "spec.nodeName"))
        .withVolumeMounts(mount("socket-dir", "/csi", null))
        .build();
  }

  private static Container livenessProbe(Images images) {
    return sidecar("liveness-probe", images.livenessProbe())
        .withArgs("--csi-address=" + SOCKET, "--health-port=" + HEALTH_PORT)
        .withVolumeMounts(mount("socket-dir", "/csi", null))
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

  private static VolumeMount mount(String name, String path, String propagation) {
    return new VolumeMountBuilder()
        .withName(name)
        .withMountPath(path)
        .withMountPropagation(propagation)
        .build();
  }

  /** apiVersion is spelled out: the API server fills it in, and a diff would loop forever. */
  private static EnvVar fieldEnv(String name, String fieldPath) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef("v1", fieldPath)
        .endValueFrom()
        .build();
  }

  /**
   * Asks the driver's own {@code /healthz} (its port opens once every gRPC endpoint serves) every
   * second from its container's start, holding back its liveness and readiness probes until it
   * answers. The kubelet runs the readiness probe as soon as this one passes, so the pod is Ready
   * within about a second of the driver serving, where a readiness probe's own initial delay and
   * period kept it waiting ten seconds or more. Not {@code /readyz}: a driver whose data dir is
   * unusable keeps running, not ready, saying why. Two minutes to start: a node under load.
   */
  private static Probe startupProbe() {
    return new ProbeBuilder(httpProbe("/healthz", HTTP_PORT_NAME, 120))
        .withPeriodSeconds(1)
        .withTimeoutSeconds(1)
        .build();
  }

  /**
   * Every field set: the API server defaults missing ones, and a diff would loop forever. No
   * initial delay: a sidecar's first probes come after its start (no startup probe needed: its
   * liveness probe allows 5 failures 10 s apart), the driver's after its startup probe passed.
   */
  private static Probe httpProbe(String path, String port, int failures) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(port))
        .withScheme("HTTP")
        .endHttpGet()
        .withInitialDelaySeconds(0)
        .withPeriodSeconds(10)
        .withTimeoutSeconds(3)
        .withSuccessThreshold(1)
        .withFailureThreshold(failures)
        .build();
  }
}
