package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Changed block tracking for backup tools: the external-snapshot-metadata sidecar in every node pod
 * (it reaches the driver's SnapshotMetadata service over the CSI socket), its TLS Secret, a Service
 * in front of it, and the SnapshotMetadataService object that tells backup tools where it is, which
 * CA to trust and which token audience to present. Deployed only where the cluster serves both the
 * snapshot API and SnapshotMetadataServices.
 *
 * <p>Volumes are node-local, and so are their snapshots: the Service routes a client only to the
 * sidecar on its own node ({@code internalTrafficPolicy: Local}), so a backup tool's data mover
 * runs on the node holding the volume, as it must anyway to read a restored snapshot.
 */
public final class SnapshotMetadataModel {

  public static final String CONTAINER = "csi-snapshot-metadata";
  static final int SIDECAR_PORT = 50051;
  public static final int SERVICE_PORT = 6443;
  static final String TLS_DIR = "/etc/thinvol/snapshot-metadata-tls";
  static final String TLS_VOLUME = "snapshot-metadata-tls";

  /**
   * The sidecars' certificate and key, one Secret for every backend (the operator's RBAC names it):
   * its DNS names are wildcards of the namespace's services, so each backend's own Service address
   * matches.
   */
  public static final String TLS_SECRET = "thinvol-snapshot-metadata-tls";

  static final Duration VALIDITY = Duration.ofDays(3650);

  private SnapshotMetadataModel() {}

  /** Whether the cluster has what the sidecar needs. */
  public static boolean deployed(Settings settings) {
    return settings.snapshotApi() && settings.snapshotMetadataApi();
  }

  public static String serviceName(StorageBackend backend) {
    return "thinvol-" + backend.getMetadata().getName() + "-snapshot-metadata";
  }

  /** The Service's DNS name: the certificate's name and the audience tokens must carry. */
  public static String serviceHost(StorageBackend backend, Settings settings) {
    return serviceName(backend) + "." + settings.namespace() + ".svc";
  }

  public static Container sidecar(String image) {
    return new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(image)
        .withSecurityContext(SocketSharing.securityContext())
        .withArgs(
            "--csi-address=" + NodeDaemonSetModel.SOCKET,
            "--port=" + SIDECAR_PORT,
            "--tls-cert=" + TLS_DIR + "/tls.crt",
            "--tls-key=" + TLS_DIR + "/tls.key",
            "--timeout=60s",
            "--max-streaming-duration-min=30")
        .addNewPort()
        .withName("snap-metadata")
        .withContainerPort(SIDECAR_PORT)
        .withProtocol("TCP")
        .endPort()
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("5m"), "memory", new Quantity("32Mi")))
        .withLimits(Map.of("memory", new Quantity("128Mi")))
        .endResources()
        .addNewVolumeMount()
        .withName("socket-dir")
        .withMountPath("/csi")
        .endVolumeMount()
        .addNewVolumeMount()
        .withName(TLS_VOLUME)
        .withMountPath(TLS_DIR)
        .withReadOnly(true)
        .endVolumeMount()
        .build();
  }

  public static Volume tlsVolume() {
    return new VolumeBuilder()
        .withName(TLS_VOLUME)
        .withNewSecret()
        .withSecretName(TLS_SECRET)
        .withDefaultMode(0400)
        .endSecret()
        .build();
  }

  public static Service service(StorageBackend backend, Settings settings) {
    return new ServiceBuilder()
        .withMetadata(Names.namespaced(serviceName(backend), backend, settings))
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(Names.nodePodLabels(backend))
        .withInternalTrafficPolicy("Local")
        .addNewPort()
        .withName("grpc")
        .withProtocol("TCP")
        .withPort(SERVICE_PORT)
        .withTargetPort(new IntOrString("snap-metadata"))
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * A new self-signed certificate valid for every backend's Service (the operator never renews it):
   * a wildcard matches one DNS label, {@code thinvol-<backend>-snapshot-metadata} here. It is its
   * own CA and trusted only by clients that took it from a thinvol SnapshotMetadataService, so
   * matching the namespace's other Services too lends its key to nothing those clients would ask.
   */
  public static SelfSignedCertificate certificate(String namespace) {
    return SelfSignedCertificate.create(
        "thinvol-snapshot-metadata." + namespace + ".svc",
        List.of(
            "*." + namespace + ".svc", "*." + namespace + ".svc.cluster.local", "*." + namespace),
        VALIDITY);
  }

  /**
   * The object backup tools look up by the driver's name; {@code certificatePem} is the sidecar's
   * (self-signed) certificate, which is its own CA.
   */
  public static SnapshotMetadataService object(
      StorageBackend backend, Settings settings, String certificatePem) {
    SnapshotMetadataService object = new SnapshotMetadataService();
    object.setMetadata(
        new ObjectMetaBuilder()
            .withName(Names.driver(backend))
            .withLabels(Names.labels(backend))
            .build());
    String host = serviceHost(backend, settings);
    object.setSpec(
        new SnapshotMetadataService.Spec(
            host + ":" + SERVICE_PORT,
            host,
            Base64.getEncoder()
                .encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII))));
    return object;
  }

  /**
   * What the sidecar does cluster-wide: review its clients' tokens and their access to the
   * snapshots they name, read those snapshots, and find its SnapshotMetadataService.
   */
  public static List<PolicyRule> clusterRules() {
    return List.of(
        rule("authentication.k8s.io", "tokenreviews", "create"),
        rule("authorization.k8s.io", "subjectaccessreviews", "create"),
        rule("snapshot.storage.k8s.io", "volumesnapshots", "get", "list"),
        rule("snapshot.storage.k8s.io", "volumesnapshotcontents", "get", "list"),
        rule(SnapshotMetadataService.GROUP, "snapshotmetadataservices", "get", "list", "watch"));
  }

  private static PolicyRule rule(String group, String resource, String... verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups(group)
        .withResources(resource)
        .withVerbs(verbs)
        .build();
  }
}
