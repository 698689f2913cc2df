package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Collection;

/**
 * On OpenShift the node pods run under the built-in {@code privileged} SecurityContextConstraints:
 * their ServiceAccount alone is bound to the ClusterRole that OpenShift 4 ships to grant its use.
 * The pods need a privileged driver (it attaches loop devices and mounts into the kubelet's
 * directories), sidecars of the unconfined SELinux type and host paths, all of which that SCC
 * admits. Creating no SCC of its own means the operator needs no right on any SCC, only {@code
 * bind} on that one ClusterRole (RBAC's escalation check for a binding to a role it does not hold).
 */
public final class PrivilegedSccModel {

  /** OpenShift's ClusterRole granting {@code use} of the {@code privileged} SCC. */
  public static final String CLUSTER_ROLE = "system:openshift:scc:privileged";

  private PrivilegedSccModel() {}

  /** Lets the node pods of the given backends, and nothing else, use the privileged SCC. */
  public static ClusterRoleBinding binding(Collection<StorageBackend> backends, Settings settings) {
    return new ClusterRoleBindingBuilder()
        .withNewMetadata()
        .withName(Names.NODE_PRIVILEGED_SCC_BINDING)
        .withLabels(Names.sharedLabels())
        .endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", CLUSTER_ROLE)
        .withSubjects(RbacModel.nodeSubjects(backends, settings))
        .build();
  }
}
