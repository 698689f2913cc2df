package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SELinux: every container that shares the driver's socket directory runs privileged or as the
 * unconfined type ({@link PrivilegedSccAdmissionTest}: the SCC they run under admits it). The set
 * of containers is read from the pod: those mounting the volume in which the driver serves its CSI
 * endpoint.
 */
class SocketSharingTest {

  private static final Settings OPEN_SHIFT =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", true, true);

  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          """
          apiVersion: thinvol.io/v1alpha1
          kind: StorageBackend
          metadata:
            name: local
          spec:
            kubeletDir: /var/data/kubelet
          """,
          StorageBackend.class);

  @ParameterizedTest(name = "snapshot API served: {0}")
  @ValueSource(booleans = {true, false})
  @DisplayName("Every container mounting the socket volume is privileged or spc_t")
  void everyContainerSharingTheSocketMayUseIt(boolean snapshots) {
    PodSpec pod =
        NodeDaemonSetModel.desired(BACKEND, OPEN_SHIFT, snapshots)
            .getSpec()
            .getTemplate()
            .getSpec();
    String socketVolume = socketVolume(pod);
    List<Container> sharing =
        pod.getContainers().stream()
            .filter(
                c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(socketVolume)))
            .toList();

    assertThat(sharing)
        .as("the driver and its sidecars share the socket")
        .hasSize(pod.getContainers().size())
        .hasSizeGreaterThanOrEqualTo(snapshots ? 6 : 5);
    assertThat(
            pod.getSecurityContext() == null ? null : pod.getSecurityContext().getSeLinuxOptions())
        .as("no pod-wide SELinux options that a container would inherit instead")
        .isNull();
    for (Container container : sharing) {
      SecurityContext context = container.getSecurityContext();
      boolean privileged = context != null && Boolean.TRUE.equals(context.getPrivileged());
      String type =
          Optional.ofNullable(context)
              .map(SecurityContext::getSeLinuxOptions)
              .map(o -> o.getType())
              .orElse(null);
      assertThat(privileged || SocketSharing.UNCONFINED_TYPE.equals(type))
          .as("%s: privileged=%s, SELinux type=%s", container.getName(), privileged, type)
          .isTrue();
    }
  }

  /** The volume mounted where the driver's {@code --csi-endpoint} socket lives. */
  private static String socketVolume(PodSpec pod) {
    Container driver =
        pod.getContainers().stream()
            .filter(c -> c.getArgs().stream().anyMatch(a -> a.startsWith("--csi-endpoint=")))
            .findFirst()
            .orElseThrow();
    String socket =
        driver.getArgs().stream()
            .filter(a -> a.startsWith("--csi-endpoint=unix://"))
            .findFirst()
            .orElseThrow()
            .substring("--csi-endpoint=unix://".length());
    return driver.getVolumeMounts().stream()
        .filter(m -> socket.startsWith(m.getMountPath() + "/"))
        .max((a, b) -> a.getMountPath().length() - b.getMountPath().length())
        .map(VolumeMount::getName)
        .orElseThrow(() -> new AssertionError("no mount holds " + socket));
  }
}
