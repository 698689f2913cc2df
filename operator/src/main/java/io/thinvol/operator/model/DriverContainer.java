package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;

/**
 * The node pod's driver container: Identity, Controller, Node and CSI-Addons in one privileged
 * process, on the kubelet's directories, /dev and the data dir.
 */
final class DriverContainer {

  private DriverContainer() {}

  static Container of(
      StorageBackend backend, Settings settings, Effective effective, Images images) {
    return new ContainerBuilder()
        .withName("driver")
        .withImage(images.driver())
        .withArgs(
            "driver",
            "--csi-endpoint=unix://" + NodeDaemonSetModel.SOCKET,
            "--addons-endpoint=unix:///csi/csi-addons.sock",
            "--addons-port=" + NodeDaemonSetModel.ADDONS_PORT,
            "--addons-tls-cert=" + NodeDaemonSetModel.TLS_DIR + "/tls.crt",
            "--addons-tls-key=" + NodeDaemonSetModel.TLS_DIR + "/tls.key",
            "--addons-token-audience=" + settings.addonsTokenAudience(),
            "--driver-name=" + Names.driver(backend),
            "--node-id=$(NODE_NAME)",
            "--data-dir=" + effective.dataDir(),
            DataDirMount.flag(backend),
            "--overprovision-ratio=" + effective.overprovisionRatio(),
            "--expansion=node",
            "--http-port=" + NodeDaemonSetModel.HTTP_PORT,
            "--log-level=" + effective.logLevel())
        .addAllToArgs(PeerForwardingModel.driverArgs(backend, settings))
        .withEnv(
            ContainerParts.fieldEnv("NODE_NAME", "spec.nodeName"),
            ContainerParts.fieldEnv("POD_NAMESPACE", "metadata.namespace"),
            ContainerParts.fieldEnv("POD_NAME", "metadata.name"))
        .addNewPort()
        .withName(BackendNames.ADDONS_PORT_NAME)
        .withContainerPort(NodeDaemonSetModel.ADDONS_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(NodeDaemonSetModel.HTTP_PORT_NAME)
        .withContainerPort(NodeDaemonSetModel.HTTP_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName("healthz")
        .withContainerPort(NodeDaemonSetModel.HEALTH_PORT)
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
        .withLivenessProbe(ContainerParts.httpProbe("/healthz", "healthz", 5))
        .withReadinessProbe(
            ContainerParts.httpProbe("/readyz", NodeDaemonSetModel.HTTP_PORT_NAME, 3))
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("10m"), "memory", new Quantity("128Mi")))
        .withLimits(Map.of("memory", new Quantity("256Mi")))
        .endResources()
        .withVolumeMounts(
            ContainerParts.mount("socket-dir", "/csi", null),
            ContainerParts.mount("pods-dir", effective.kubeletDir() + "/pods", "Bidirectional"),
            ContainerParts.mount(
                "plugins-dir", effective.kubeletDir() + "/plugins", "Bidirectional"),
            ContainerParts.mount("dev-dir", "/dev", null),
            DataDirMount.mount(effective),
            ContainerParts.mount("tmp", "/tmp", null),
            new VolumeMountBuilder()
                .withName("addons-tls")
                .withMountPath(NodeDaemonSetModel.TLS_DIR)
                .withReadOnly(true)
                .build(),
            PeerForwardingModel.tokenMount())
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
    return new ProbeBuilder(
            ContainerParts.httpProbe("/healthz", NodeDaemonSetModel.HTTP_PORT_NAME, 120))
        .withPeriodSeconds(1)
        .withTimeoutSeconds(1)
        .build();
  }
}
