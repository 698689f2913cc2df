package io.thinvol.operator.model;

import io.fabric8.openshift.api.model.SecurityContextConstraints;
import io.fabric8.openshift.api.model.SecurityContextConstraintsBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;

/**
 * On OpenShift, what the node pods may do, and nothing more: a privileged container (it attaches
 * loop devices and mounts into the kubelet's directories) with host paths, but no host network,
 * PID, IPC or ports. Only the node ServiceAccount is listed as a user, so no other pod in the
 * cluster gains these rights. Listing it here rather than granting {@code use} by RBAC keeps the
 * operator's own RBAC free of {@code use} on SecurityContextConstraints: to grant a permission a
 * role must hold it, and the operator cannot know the names of future backends' SCCs.
 */
public final class SecurityContextConstraintsModel {

  private static final String RUN_AS_ANY = "RunAsAny";

  private SecurityContextConstraintsModel() {}

  public static SecurityContextConstraints desired(StorageBackend backend, Settings settings) {
    return new SecurityContextConstraintsBuilder()
        .withNewMetadata()
        .withName(Names.nodeSecurityContextConstraints(backend))
        .withLabels(Names.labels(backend))
        .endMetadata()
        .withAllowPrivilegedContainer(true)
        .withAllowPrivilegeEscalation(true)
        .withAllowHostDirVolumePlugin(true)
        .withAllowHostNetwork(false)
        .withAllowHostPID(false)
        .withAllowHostIPC(false)
        .withAllowHostPorts(false)
        .withReadOnlyRootFilesystem(false)
        .withNewRunAsUser()
        .withType(RUN_AS_ANY)
        .endRunAsUser()
        .withNewSeLinuxContext()
        .withType(RUN_AS_ANY)
        .endSeLinuxContext()
        .withNewFsGroup()
        .withType(RUN_AS_ANY)
        .endFsGroup()
        .withNewSupplementalGroups()
        .withType(RUN_AS_ANY)
        .endSupplementalGroups()
        .withVolumes("configMap", "downwardAPI", "emptyDir", "hostPath", "projected", "secret")
        .withUsers(
            "system:serviceaccount:"
                + settings.namespace()
                + ":"
                + Names.nodeServiceAccount(backend))
        .withGroups()
        .build();
  }
}
