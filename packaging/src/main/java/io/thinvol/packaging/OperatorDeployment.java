package io.thinvol.packaging;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpecBuilder;
import io.thinvol.addons.call.ProjectedToken;
import io.thinvol.operator.model.Images;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.OperatorRbac;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The operator's Deployment as the bundle installs it (the chart's template renders the same
 * container, with values for image and placement): two replicas on different nodes where it can,
 * one leading and one on standby with its caches warm, so that the loss of the leader's node is
 * told (moves' NodeNotReady, claims' NodeLost) by the other within the Lease's 15 s rather than
 * after the 300 s a pod on an unreachable node waits for its eviction (docs/decisions.md, "Two
 * operator replicas"); non-root, read-only root filesystem, probes on the health port; and the
 * projected ServiceAccount token the addons send to the drivers (their own audience, ten minutes'
 * life), so that the pod's API-server token never leaves it.
 */
public final class OperatorDeployment {

  public static final String NAME = "thinvol-operator";
  public static final int HEALTH_PORT = 8081;
  static final Map<String, String> LABELS = Names.operatorPodLabels();

  /** The shortest life the API server allows; the kubelet renews the token at 80% of it. */
  static final long ADDONS_TOKEN_SECONDS = 600;

  public static final int REPLICAS = 2;

  private OperatorDeployment() {}

  public static DeploymentSpec spec(String image) {
    return new DeploymentSpecBuilder()
        .withReplicas(REPLICAS)
        .withNewSelector()
        .withMatchLabels(LABELS)
        .endSelector()
        .withNewStrategy()
        .withType("Recreate")
        .endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(LABELS)
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(OperatorRbac.SERVICE_ACCOUNT)
        .withAffinity(spreadOverNodes())
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .withContainers(container(image))
        .addNewVolume()
        .withName("tmp")
        .withNewEmptyDir()
        .endEmptyDir()
        .endVolume()
        .addNewVolume()
        .withName("addons-token")
        .withNewProjected()
        .addNewSource()
        .withNewServiceAccountToken()
        .withAudience(ProjectedToken.DEFAULT_AUDIENCE)
        .withExpirationSeconds(ADDONS_TOKEN_SECONDS)
        .withPath(ProjectedToken.DEFAULT_FILE.getFileName().toString())
        .endServiceAccountToken()
        .endSource()
        .endProjected()
        .endVolume()
        .endSpec()
        .endTemplate()
        .build();
  }

  /** Preferred, not required: a one-node cluster runs both replicas on its node. */
  public static Affinity spreadOverNodes() {
    return new AffinityBuilder()
        .withNewPodAntiAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution()
        .withWeight(100)
        .withNewPodAffinityTerm()
        .withTopologyKey("kubernetes.io/hostname")
        .withNewLabelSelector()
        .withMatchLabels(LABELS)
        .endLabelSelector()
        .endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution()
        .endPodAntiAffinity()
        .build();
  }

  public static Container container(String image) {
    return new ContainerBuilder()
        .withName("operator")
        .withImage(image)
        .withArgs("operator")
        .addAllToEnv(settings())
        .addAllToEnv(relatedImages())
        .addNewPort()
        .withName("health")
        .withContainerPort(HEALTH_PORT)
        .withProtocol("TCP")
        .endPort()
        .withNewLivenessProbe()
        .withNewHttpGet()
        .withPath("/healthz")
        .withPort(new IntOrString("health"))
        .endHttpGet()
        .withInitialDelaySeconds(15)
        .withPeriodSeconds(20)
        .endLivenessProbe()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/readyz")
        .withPort(new IntOrString("health"))
        .endHttpGet()
        .withPeriodSeconds(10)
        .endReadinessProbe()
        .withNewResources()
        .withRequests(
            new TreeMap<>(Map.of("cpu", new Quantity("50m"), "memory", new Quantity("256Mi"))))
        .withLimits(new TreeMap<>(Map.of("memory", new Quantity("384Mi"))))
        .endResources()
        .addNewVolumeMount()
        .withName("tmp")
        .withMountPath("/tmp")
        .endVolumeMount()
        .addNewVolumeMount()
        .withName("addons-token")
        .withMountPath(ProjectedToken.DEFAULT_FILE.getParent().toString())
        .withReadOnly(true)
        .endVolumeMount()
        .withNewSecurityContext()
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .endSecurityContext()
        .build();
  }

  private static List<EnvVar> settings() {
    return List.of(
        field("POD_NAMESPACE", "metadata.namespace"),
        field("POD_NAME", "metadata.name"),
        new EnvVarBuilder().withName("THINVOL_HEALTH_PORT").withValue("" + HEALTH_PORT).build(),
        new EnvVarBuilder()
            .withName("THINVOL_ADDONS_TOKEN_FILE")
            .withValue(ProjectedToken.DEFAULT_FILE.toString())
            .build(),
        new EnvVarBuilder()
            .withName("THINVOL_ADDONS_TOKEN_AUDIENCE")
            .withValue(ProjectedToken.DEFAULT_AUDIENCE)
            .build());
  }

  /**
   * The node pods' images as {@code RELATED_IMAGE_*} variables (the operator's defaults; OLM
   * rewrites them to a mirror's digests): the same list as the CSV's relatedImages. The driver's is
   * its own image, tagged with the driver's version, so it stays the same across operator releases
   * that keep the driver.
   */
  static List<EnvVar> relatedImages() {
    return Images.compiled().byVariable().entrySet().stream()
        .map(e -> new EnvVarBuilder().withName(e.getKey()).withValue(e.getValue()).build())
        .toList();
  }

  private static EnvVar field(String name, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withApiVersion("v1")
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }
}
