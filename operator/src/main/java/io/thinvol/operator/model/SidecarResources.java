package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.thinvol.api.v1alpha1.SidecarResourcesSpec;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The requests and limits of the node pods' sidecars: the backend's {@code sidecarResources}, each
 * section (requests, limits) replacing the default's. The provisioner and the resizer keep every
 * PVC and PV of the cluster in their informers, about 40 KiB per volume measured upstream
 * (docs/benchmarks.md): their default limit holds about 12,000 volumes.
 */
public final class SidecarResources {

  private static final ResourceRequirements SMALL = resources("32Mi", "128Mi");
  private static final ResourceRequirements CLUSTER_CACHE = resources("64Mi", "512Mi");

  private record Sidecar(
      ResourceRequirements defaults, Function<SidecarResourcesSpec, ResourceRequirements> spec) {}

  private static final Map<String, Sidecar> SIDECARS =
      Map.of(
          "node-driver-registrar",
          new Sidecar(SMALL, SidecarResourcesSpec::getNodeDriverRegistrar),
          "csi-provisioner",
          new Sidecar(CLUSTER_CACHE, SidecarResourcesSpec::getProvisioner),
          "csi-resizer",
          new Sidecar(CLUSTER_CACHE, SidecarResourcesSpec::getResizer),
          "csi-snapshotter",
          new Sidecar(SMALL, SidecarResourcesSpec::getSnapshotter),
          "liveness-probe",
          new Sidecar(SMALL, SidecarResourcesSpec::getLivenessProbe));

  private SidecarResources() {}

  /** The container with its resources set, if it is one of the sidecars; else unchanged. */
  public static Container apply(StorageBackend backend, Container container) {
    Sidecar sidecar = SIDECARS.get(container.getName());
    if (sidecar == null) {
      return container;
    }
    Optional<ResourceRequirements> wanted =
        Optional.ofNullable(backend.getSpec())
            .map(s -> s.getSidecarResources())
            .map(sidecar.spec());
    ResourceRequirements defaults = sidecar.defaults();
    return new ContainerBuilder(container)
        .withNewResources()
        .withRequests(
            wanted
                .map(ResourceRequirements::getRequests)
                .filter(m -> !m.isEmpty())
                .orElse(defaults.getRequests()))
        .withLimits(
            wanted
                .map(ResourceRequirements::getLimits)
                .filter(m -> !m.isEmpty())
                .orElse(defaults.getLimits()))
        .endResources()
        .build();
  }

  private static ResourceRequirements resources(String memoryRequest, String memoryLimit) {
    return new ResourceRequirementsBuilder()
        .withRequests(Map.of("cpu", new Quantity("5m"), "memory", new Quantity(memoryRequest)))
        .withLimits(Map.of("memory", new Quantity(memoryLimit)))
        .build();
  }
}
