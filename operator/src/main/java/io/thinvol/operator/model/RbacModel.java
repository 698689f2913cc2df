package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The node pods' identity and exactly the permissions the driver and its sidecars use (rules of
 * external-provisioner in node-deployment mode, external-resizer, external-snapshotter, the
 * driver's TokenReviews and the condition it sets on its own pod). No wildcards.
 * node-driver-registrar and livenessprobe need none.
 */
public final class RbacModel {

  private static final List<String> READ = List.of("get", "list", "watch");

  private RbacModel() {}

  public static ServiceAccount serviceAccount(StorageBackend backend, Settings settings) {
    return new ServiceAccountBuilder()
        .withMetadata(Names.namespaced(Names.nodeServiceAccount(backend), backend, settings))
        .build();
  }

  /**
   * The node pods' cluster-wide rules, the snapshot-metadata sidecar's where it runs, and the
   * snapshotter's group snapshot rules where that API is served: the same for every backend.
   */
  public static ClusterRole clusterRole(Settings settings) {
    List<PolicyRule> rules = new ArrayList<>(clusterRules());
    if (SnapshotMetadataModel.deployed(settings)) {
      rules.addAll(SnapshotMetadataModel.clusterRules());
    }
    if (GroupSnapshotModel.deployed(settings)) {
      rules.addAll(GroupSnapshotModel.clusterRules());
    }
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(Names.NODE_CLUSTER_ROLE)
        .withLabels(Names.sharedLabels())
        .endMetadata()
        .withRules(rules)
        .build();
  }

  /** What the node pods do cluster-wide; the operator must hold it too, to grant it. */
  public static List<PolicyRule> clusterRules() {
    return List.of(
        rule("", "persistentvolumes", "get", "list", "watch", "create", "patch", "delete"),
        rule("", "persistentvolumeclaims", "get", "list", "watch", "update"),
        rule("", "persistentvolumeclaims/status", "patch"),
        rule("", "events", "list", "watch", "create", "update", "patch"),
        rule("", "nodes", READ),
        rule("", "pods", READ),
        rule("storage.k8s.io", "storageclasses", READ),
        rule("storage.k8s.io", "csinodes", READ),
        rule("storage.k8s.io", "volumeattachments", READ),
        rule("storage.k8s.io", "volumeattributesclasses", READ),
        rule("snapshot.storage.k8s.io", "volumesnapshotclasses", READ),
        rule("snapshot.storage.k8s.io", "volumesnapshots", "get", "list", "watch", "update"),
        rule(
            "snapshot.storage.k8s.io",
            "volumesnapshotcontents",
            "get",
            "list",
            "watch",
            "create",
            "update",
            "patch"),
        rule("snapshot.storage.k8s.io", "volumesnapshotcontents/status", "update", "patch"),
        rule("authentication.k8s.io", "tokenreviews", "create"),
        // a node's driver sends a replica only to the standby its VolumeReplication names
        rule("thinvol.io", "volumereplications", "get"));
  }

  /** Binds the shared node rules to the node ServiceAccounts of the given backends. */
  public static ClusterRoleBinding clusterRoleBinding(
      Collection<StorageBackend> backends, Settings settings) {
    return new ClusterRoleBindingBuilder()
        .withNewMetadata()
        .withName(Names.NODE_CLUSTER_ROLE_BINDING)
        .withLabels(Names.sharedLabels())
        .endMetadata()
        .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", Names.NODE_CLUSTER_ROLE)
        .withSubjects(nodeSubjects(backends, settings))
        .build();
  }

  /** In the operator's namespace: leader election (resizer) and capacity objects (provisioner). */
  public static Role role(StorageBackend backend, Settings settings) {
    return new RoleBuilder()
        .withMetadata(Names.namespaced(Names.nodeRole(backend), backend, settings))
        .withRules(namespaceRules())
        .build();
  }

  /** What the node pods do in the operator's namespace; the operator must hold it too. */
  public static List<PolicyRule> namespaceRules() {
    return List.of(
        rule("coordination.k8s.io", "leases", "get", "list", "watch", "create", "update", "delete"),
        rule(
            "storage.k8s.io",
            "csistoragecapacities",
            "get",
            "list",
            "watch",
            "create",
            "update",
            "patch",
            "delete"),
        rule("", "pods", "get"),
        // the driver sets its own pod's condition thinvol.io/DataDirFull
        rule("", "pods/status", "patch"),
        rule("apps", "daemonsets", "get"));
  }

  public static RoleBinding roleBinding(StorageBackend backend, Settings settings) {
    return new RoleBindingBuilder()
        .withMetadata(Names.namespaced(Names.nodeRole(backend), backend, settings))
        .withNewRoleRef("rbac.authorization.k8s.io", "Role", Names.nodeRole(backend))
        .withSubjects(nodeSubject(backend, settings))
        .build();
  }

  static Subject nodeSubject(StorageBackend backend, Settings settings) {
    return new SubjectBuilder()
        .withKind("ServiceAccount")
        .withName(Names.nodeServiceAccount(backend))
        .withNamespace(settings.namespace())
        .build();
  }

  /** One subject per backend, ordered by name: the same backends give the same list. */
  static List<Subject> nodeSubjects(Collection<StorageBackend> backends, Settings settings) {
    return backends.stream()
        .sorted(Comparator.comparing(backend -> backend.getMetadata().getName()))
        .map(backend -> nodeSubject(backend, settings))
        .toList();
  }

  private static PolicyRule rule(String group, String resource, String... verbs) {
    return rule(group, resource, List.of(verbs));
  }

  private static PolicyRule rule(String group, String resource, List<String> verbs) {
    return new PolicyRuleBuilder()
        .withApiGroups(group)
        .withResources(resource)
        .withVerbs(verbs)
        .build();
  }
}
