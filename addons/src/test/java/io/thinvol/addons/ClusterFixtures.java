package io.thinvol.addons;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.thinvol.api.BackendNames;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * The Kubernetes objects around a thinvol volume, as the cluster would hold them; shared with the
 * operator's end-to-end test.
 */
public final class ClusterFixtures {

  private ClusterFixtures() {}

  /**
   * A Ready driver pod of {@code backend} on {@code node}, serving CSI-Addons on host:port, with
   * the status its kubelet writes (create it with {@code PlayedControllers.createWithStatus}).
   */
  public static Pod driverPod(
      String namespace, String backend, String node, String host, int port) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(BackendNames.nodeDaemonSet(backend) + "-" + node)
        .withNamespace(namespace)
        .withLabels(
            Map.of(
                "app.kubernetes.io/name",
                BackendNames.NODE_POD_NAME,
                BackendNames.BACKEND_LABEL,
                backend))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("driver")
        .withImage("thinvol")
        .addNewPort()
        .withName(BackendNames.ADDONS_PORT_NAME)
        .withContainerPort(port)
        .endPort()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPodIP(host)
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus()
        .build();
  }

  /**
   * A 1 GiB PV of {@code driver} on {@code node}, bound to namespace/claim, with the status the PV
   * controller writes (create it with {@code PlayedControllers.createWithStatus}).
   */
  public static PersistentVolume volume(
      String name,
      String driver,
      String volumeHandle,
      String node,
      String namespace,
      String claim) {
    return new PersistentVolumeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withCapacity(Map.of("storage", new Quantity("1Gi")))
        .withAccessModes("ReadWriteOnce")
        .withNewCsi()
        .withDriver(driver)
        .withVolumeHandle(volumeHandle)
        .withFsType("ext4")
        .endCsi()
        .withNewClaimRef()
        .withNamespace(namespace)
        .withName(claim)
        .endClaimRef()
        .withNewNodeAffinity()
        .withNewRequired()
        .addNewNodeSelectorTerm()
        .addNewMatchExpression()
        .withKey(BackendNames.TOPOLOGY_KEY)
        .withOperator("In")
        .withValues(node)
        .endMatchExpression()
        .endNodeSelectorTerm()
        .endRequired()
        .endNodeAffinity()
        .endSpec()
        .withNewStatus()
        .withPhase("Bound")
        .endStatus()
        .build();
  }

  /** A claim of 1 GiB on {@code storageClass}, as an application makes it: not bound yet. */
  public static PersistentVolumeClaim claim(String namespace, String name, String storageClass) {
    return new PersistentVolumeClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(storageClass)
        .withNewResources()
        .withRequests(Map.of("storage", new Quantity("1Gi")))
        .endResources()
        .endSpec()
        .build();
  }

  /**
   * A PVC of {@code storageClass} bound to PV {@code volumeName}, with the status the PV controller
   * writes (create it with {@code PlayedControllers.createWithStatus}).
   */
  public static PersistentVolumeClaim boundClaim(
      String namespace, String name, String storageClass, String volumeName) {
    return new PersistentVolumeClaimBuilder(claim(namespace, name, storageClass))
        .editSpec()
        .withVolumeName(volumeName)
        .endSpec()
        .withNewStatus()
        .withPhase("Bound")
        .endStatus()
        .build();
  }

  /**
   * The drivers' CSI-Addons certificate Secret (one for every backend), as the operator stores it:
   * a {@code kubernetes.io/tls} Secret, which the API server accepts only with both keys. The
   * private key is the drivers' and never read by the addons: a placeholder stands for it.
   */
  public static Secret addonsTlsSecret(String namespace, String certificatePem) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(BackendNames.ADDONS_TLS_SECRET)
        .withNamespace(namespace)
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withData(
            Map.of(
                "tls.crt",
                Base64.getEncoder()
                    .encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII)),
                "tls.key",
                Base64.getEncoder()
                    .encodeToString(
                        "the drivers' private key".getBytes(StandardCharsets.US_ASCII))))
        .build();
  }
}
