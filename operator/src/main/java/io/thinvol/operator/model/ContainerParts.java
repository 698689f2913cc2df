package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

/** Parts of the node pod's containers, spelled out as the API server stores them. */
final class ContainerParts {

  private ContainerParts() {}

  static VolumeMount mount(String name, String path, String propagation) {
    return new VolumeMountBuilder()
        .withName(name)
        .withMountPath(path)
        .withMountPropagation(propagation)
        .build();
  }

  /** apiVersion is spelled out: the API server fills it in, and a diff would loop forever. */
  static EnvVar fieldEnv(String name, String fieldPath) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef("v1", fieldPath)
        .endValueFrom()
        .build();
  }

  /**
   * Every field the API server would default set, or a diff would loop forever. No initial delay,
   * and none written: the server stores no zero there (the field is omitted when empty), so a
   * written 0 would differ from the stored object on every reconcile and the operator would patch
   * the DaemonSet for ever. A sidecar's first probes come after its start (no startup probe needed:
   * its liveness probe allows 5 failures 10 s apart), the driver's after its startup probe passed.
   */
  static Probe httpProbe(String path, String port, int failures) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(port))
        .withScheme("HTTP")
        .endHttpGet()
        .withPeriodSeconds(10)
        .withTimeoutSeconds(3)
        .withSuccessThreshold(1)
        .withFailureThreshold(failures)
        .build();
  }
}
