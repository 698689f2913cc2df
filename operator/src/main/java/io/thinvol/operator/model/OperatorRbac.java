package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.thinvol.api.BackendNames;
import io.thinvol.operator.kinds.OptionalKinds;
import io.thinvol.operator.monitoring.MonitoringApi;
import io.thinvol.operator.monitoring.OpenShiftMonitoringModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The operator's own permissions: what its code does, plus what it grants the node pods (the API
 * server lets a role be created only by someone who holds its rules). The bundle's CSV and the Helm
 * chart are generated from here; a test runs the operator and checks every request it made is
 * covered, and nothing more is granted. No wildcards.
 */
public final class OperatorRbac {

  public static final String SERVICE_ACCOUNT = "thinvol-operator";

  private static final String[] READ = {"get", "list", "watch"};

  /**
   * What the operator does to the objects it owns; deletecollection removes a backend's by label.
   */
  private static final String[] MANAGE = {
    "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"
  };

  private OperatorRbac() {}

  /**
   * Cluster-wide rules; {@code openShift} adds binding the node pods to the built-in privileged SCC
   * ({@link PrivilegedSccModel}): {@code bind} on that one ClusterRole, and no right on any SCC.
   */
  public static List<PolicyRule> clusterRules(boolean openShift) {
    Rules rules = new Rules();
    rules.add("thinvol.io", "storagebackends", "get", "list", "watch", "patch");
    rules.add("thinvol.io", "storagebackends/status", "update");
    rules.add("thinvol.io", "storagebackends/finalizers", "update");
    rules.add("thinvol.io", "reclaimspacejobs", "get", "list", "watch", "create", "delete");
    rules.add("thinvol.io", "reclaimspacejobs/status", "update");
    rules.add("thinvol.io", "reclaimspacecronjobs", "get", "list", "watch");
    rules.add("thinvol.io", "reclaimspacecronjobs/status", "update");
    // A cron job's runs block its foreground deletion, as a CronJob's Jobs do; admission
    // (OwnerReferencesPermissionEnforcement) lets only who may update the owner's finalizers say
    // so.
    rules.add("thinvol.io", "reclaimspacecronjobs/finalizers", "update");
    // VolumeMoves: the operator's finalizer (a patch), the status, and the objects of a move
    // (io.thinvol.operator.move): the snapshots, the claims it makes and the claim it re-creates,
    // the new volume and the old one's reclaim policy, and the admission policy that keeps the
    // claim's name for the operator during the cut-over.
    rules.add("thinvol.io", "volumemoves", "get", "list", "watch", "patch");
    rules.add("thinvol.io", "volumemoves/status", "update");
    rules.add("", "persistentvolumeclaims", "create", "delete");
    rules.add("", "persistentvolumes", "create", "patch");
    rules.add("snapshot.storage.k8s.io", "volumesnapshots", "create", "delete");
    rules.add("snapshot.storage.k8s.io", "volumesnapshotcontents", "create", "delete");
    rules.add("admissionregistration.k8s.io", "validatingadmissionpolicies", "create", "delete");
    rules.add(
        "admissionregistration.k8s.io", "validatingadmissionpolicybindings", "create", "delete");
    rules.add("", "namespaces", READ);
    rules.add("", "persistentvolumeclaims", READ);
    // The scheduler records each claim's latest run on it
    // (reclaimspace.thinvol.io/last-scheduled-run)
    // so that runs missed while no operator ran are made up after a restart.
    rules.add("", "persistentvolumeclaims", "patch");
    rules.add("", "persistentvolumes", READ);
    rules.add("", "pods", READ);
    // A failover deletes the pods of the claim on the dead, fenced node at once, as the pod
    // garbage collector would later (io.thinvol.operator.move.FencedPods).
    rules.add("", "pods", "delete");
    // get and patch: a recurring Warning raises the count of its Event instead of adding one.
    rules.add("", "events", "get", "create", "patch");
    rules.add("storage.k8s.io", "csinodes", READ);
    rules.add("storage.k8s.io", "csidrivers", MANAGE);
    rules.add("storage.k8s.io", "storageclasses", MANAGE);
    // The node pods' ClusterRole is one, by name; create cannot be limited to a name in RBAC.
    rules.add("rbac.authorization.k8s.io", "clusterroles", "create");
    rules.addNamed(
        "rbac.authorization.k8s.io", "clusterroles", Names.NODE_CLUSTER_ROLE, "get", "patch");
    // Likewise its bindings: one for every backend, whose subjects are rewritten by name.
    rules.add("rbac.authorization.k8s.io", "clusterrolebindings", "create");
    rules.addNamed(
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        Names.NODE_CLUSTER_ROLE_BINDING,
        "get",
        "patch");
    rules.add("snapshot.storage.k8s.io", "volumesnapshotclasses", MANAGE);
    // Labels its drivers' contents with their node where the snapshot controller did not
    // (SnapshotContentNode); a merge patch of that label only.
    rules.add("snapshot.storage.k8s.io", "volumesnapshotcontents", "get", "list", "watch", "patch");
    rules.add(SnapshotMetadataService.GROUP, "snapshotmetadataservices", MANAGE);
    rules.add(GroupSnapshotModel.GROUP, "volumegroupsnapshotclasses", MANAGE);
    // Node evacuation (io.thinvol.operator.evacuate): a VolumeMove for every thinvol volume of a
    // node annotated thinvol.io/evacuate=true; those not yet cutting over are deleted when the
    // annotation goes.
    rules.add("thinvol.io", "volumemoves", "list", "watch", "create", "delete");
    // VolumeReplications (io.thinvol.operator.replicate): the finalizer (a patch), the status, its
    // class; a failover or a switchover is a VolumeMove it creates (above); a stale copy's old
    // volume gets its policy back (persistentvolumes patch, above).
    rules.add("thinvol.io", "volumereplications", "get", "list", "watch", "patch");
    rules.add("thinvol.io", "volumereplications/status", "update");
    rules.add("thinvol.io", "volumereplicationclasses", "get");
    // Nodes: their annotation (evacuation), health (a move's nodes NotReady or lost) and deletion
    // (claims on lost nodes, io.thinvol.operator.nodeloss), which a Warning on each claim tells.
    rules.add("", "nodes", READ);
    // A kind beyond StorageBackend may be missing (Helm never upgrades a chart's CRDs): the
    // operator watches the CRD of each it lacks, by name, to start what waits for it once served.
    rules.addNamed(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        OptionalKinds.crdNames(),
        "list",
        "watch");
    if (openShift) {
      // The console's dashboard: one ConfigMap in openshift-config-managed, by name; create cannot
      // be limited to a name, nor (in a CSV) to another namespace.
      rules.add("", "configmaps", "create");
      rules.addNamed(
          "", "configmaps", OpenShiftMonitoringModel.DASHBOARD, "get", "update", "delete");
      rules.addNamed(
          "rbac.authorization.k8s.io", "clusterroles", PrivilegedSccModel.CLUSTER_ROLE, "bind");
      rules.addNamed(
          "rbac.authorization.k8s.io",
          "clusterrolebindings",
          Names.NODE_PRIVILEGED_SCC_BINDING,
          "get",
          "patch");
    }
    rules.addAll(RbacModel.clusterRules());
    rules.addAll(SnapshotMetadataModel.clusterRules());
    rules.addAll(GroupSnapshotModel.clusterRules());
    return rules.build();
  }

  /** Rules in the operator's own namespace. */
  public static List<PolicyRule> namespaceRules() {
    Rules rules = new Rules();
    // A Role may name the Namespace object itself: the operator labels its own for Pod Security.
    rules.add("", "namespaces", "get", "patch");
    // The TLS Secrets are two, one for every backend, by name; create cannot be limited to a name.
    // Created once (a server-side apply is a patch) and never changed or deleted.
    rules.add("", "secrets", "create");
    rules.addNamed("", "secrets", BackendNames.ADDONS_TLS_SECRET, "get", "list", "watch", "patch");
    rules.addNamed(
        "", "secrets", SnapshotMetadataModel.TLS_SECRET, "get", "list", "watch", "patch");
    rules.add("", "services", MANAGE);
    rules.add("", "serviceaccounts", MANAGE);
    rules.add("apps", "daemonsets", MANAGE);
    rules.add("rbac.authorization.k8s.io", "roles", MANAGE);
    rules.add("rbac.authorization.k8s.io", "rolebindings", MANAGE);
    // Leader election: fabric8's LeaseLock reads, creates and renews (a JSON merge patch) the
    // Lease; JOSDK refuses to start electing unless a rules review also shows update.
    rules.add("coordination.k8s.io", "leases", "get", "create", "update", "patch");
    rules.add("networking.k8s.io", "networkpolicies", MANAGE);
    // Where the Prometheus Operator's API is served: each backend's and the operator's own. (On
    // OpenShift the Role for cluster monitoring's Prometheus grants reading pods, which the
    // operator holds cluster-wide already.)
    rules.add(MonitoringApi.GROUP, MonitoringApi.POD_MONITORS, MANAGE);
    rules.add(MonitoringApi.GROUP, MonitoringApi.PROMETHEUS_RULES, MANAGE);
    rules.addAll(RbacModel.namespaceRules());
    return rules.build();
  }

  /** Rules merged per API group and resource, in a stable order; rules on one object last. */
  private static final class Rules {
    private final Map<String, Map<String, Set<String>>> verbs = new TreeMap<>();
    private final List<PolicyRule> named = new ArrayList<>();

    void addNamed(String group, String resource, String name, String... verbs) {
      addNamed(group, resource, List.of(name), verbs);
    }

    void addNamed(String group, String resource, List<String> names, String... verbs) {
      // a rule of its own: merged with the unnamed ones it would widen to every name
      named.add(
          new PolicyRuleBuilder()
              .withApiGroups(group)
              .withResources(resource)
              .withResourceNames(names)
              .withVerbs(verbs)
              .build());
    }

    void add(String group, String resource, String... verbs) {
      this.verbs
          .computeIfAbsent(group, g -> new TreeMap<>())
          .computeIfAbsent(resource, r -> new TreeSet<>())
          .addAll(List.of(verbs));
    }

    void addAll(List<PolicyRule> rules) {
      for (PolicyRule rule : rules) {
        for (String group : rule.getApiGroups()) {
          for (String resource : rule.getResources()) {
            add(group, resource, rule.getVerbs().toArray(String[]::new));
          }
        }
      }
    }

    List<PolicyRule> build() {
      List<PolicyRule> rules = new ArrayList<>();
      verbs.forEach(
          (group, resources) ->
              resources.forEach(
                  (resource, granted) ->
                      rules.add(
                          new PolicyRuleBuilder()
                              .withApiGroups(group)
                              .withResources(resource)
                              .withVerbs(ordered(granted))
                              .build())));
      rules.addAll(named);
      return rules;
    }

    private static List<String> ordered(Set<String> granted) {
      List<String> order =
          List.of(
              "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");
      List<String> result = new ArrayList<>(order.stream().filter(granted::contains).toList());
      granted.stream().filter(v -> !order.contains(v)).sorted().forEach(result::add);
      return result;
    }
  }
}
