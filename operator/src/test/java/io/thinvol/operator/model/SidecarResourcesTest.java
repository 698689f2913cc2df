package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import org.junit.jupiter.api.Test;

/** The node pods' sidecar resources: defaults sized for cluster-wide caches, and overrides. */
class SidecarResourcesTest {

  private static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);

  private static Container container(StorageBackend backend, String name) {
    DaemonSet daemonSet = NodeDaemonSetModel.desired(backend, SETTINGS, true);
    return daemonSet.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static StorageBackend backend(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml, StorageBackend.class);
  }

  @Test
  void theSidecarsCachingEveryVolumeOfTheClusterGetRoomForIt() {
    StorageBackend backend = backend("metadata:\n  name: local\n");

    for (String caching : new String[] {"csi-provisioner", "csi-resizer"}) {
      assertThat(container(backend, caching).getResources().getLimits())
          .as(caching)
          .containsEntry("memory", new Quantity("512Mi"));
      assertThat(container(backend, caching).getResources().getRequests())
          .containsEntry("memory", new Quantity("64Mi"));
    }
    for (String small :
        new String[] {"node-driver-registrar", "csi-snapshotter", "liveness-probe"}) {
      assertThat(container(backend, small).getResources().getLimits())
          .as(small)
          .containsEntry("memory", new Quantity("128Mi"));
    }
    assertThat(container(backend, "driver").getResources().getLimits())
        .as("the driver's own, not a sidecar's")
        .containsEntry("memory", new Quantity("256Mi"));
  }

  @Test
  void aBackendsLimitsReplaceTheDefaultLimitsAndKeepTheDefaultRequests() {
    StorageBackend backend =
        backend(
            "metadata:\n  name: local\nspec:\n  sidecarResources:\n    provisioner:\n"
                + "      limits:\n        memory: 2Gi\n        cpu: \"1\"\n");

    Container provisioner = container(backend, "csi-provisioner");

    assertThat(provisioner.getResources().getLimits())
        .containsOnlyKeys("memory", "cpu")
        .containsEntry("memory", new Quantity("2Gi"));
    assertThat(provisioner.getResources().getRequests())
        .containsEntry("memory", new Quantity("64Mi"));
    assertThat(container(backend, "csi-resizer").getResources().getLimits())
        .containsEntry("memory", new Quantity("512Mi"));
  }
}
