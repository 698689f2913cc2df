package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.schedule.SchedulePolicy;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.OperatorRbac;
import io.thinvol.operator.model.RbacModel;
import io.thinvol.operator.model.SnapshotMetadataModel;
import io.thinvol.operator.monitoring.MonitoringApi;
import io.thinvol.operator.monitoring.OpenShiftMonitoringModel;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.PlayedControllers;
import io.thinvol.testing.StrictApiServer;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Runs the operator through a backend's whole life and a reclaim job, records every request it
 * makes, and checks the RBAC of the bundle and chart ({@link OperatorRbac}) covers each one — and
 * grants nothing that neither the operator's requests nor the node pods' roles need.
 */
class RbacCoverageTest extends MockClusterTest {

  /** Granted though this run does not reach them, and why. */
  static final Map<String, String> UNEXERCISED =
      Map.ofEntries(
          Map.entry(
              "create thinvol.io/reclaimspacejobs",
              "cron jobs and annotation schedules create jobs at their times"),
          Map.entry(
              "delete thinvol.io/reclaimspacejobs",
              "history limits, Replace, and scheduled jobs that succeeded"),
          Map.entry(
              "get thinvol.io/reclaimspacejobs", "a status write re-reads the job on a conflict"),
          Map.entry(
              "get thinvol.io/storagebackends",
              "a job's target resolver reads a StorageBackend missing from its cache once before"
                  + " the job fails for it"),
          Map.entry(
              "get thinvol.io/reclaimspacecronjobs",
              "a status write re-reads the cron job on a conflict"),
          Map.entry(
              "create thinvol.io/volumemoves",
              "node evacuation makes a move for each volume of a node: NodeEvacuationTest"),
          Map.entry(
              "delete thinvol.io/volumemoves",
              "node evacuation stopped takes back moves not cutting over: NodeEvacuationTest"),
          Map.entry(
              "patch core/persistentvolumeclaims",
              "an annotation schedule records its last run on the claim, to make up a run missed"
                  + " while no operator ran: ScheduleTest in addons"),
          Map.entry(
              "patch rbac.authorization.k8s.io/clusterroles",
              "the shared node ClusterRole's rules change with the operator's settings or"
                  + " version: NodeRbacUpgradeTest"),
          Map.entry(
              "get core/secrets",
              "the addons read the drivers' certificate before calling them: ReclaimEndToEndTest"),
          Map.entry(
              "patch core/secrets",
              "in production the TLS Secrets are created by server-side apply, a patch of their"
                  + " name (the mock server has none, these tests run without it)"),
          Map.entry(
              "patch coordination.k8s.io/leases",
              "lease renewals with leader election on: LeaderElectionRbacTest"),
          Map.entry(
              "update thinvol.io/reclaimspacecronjobs/finalizers",
              "blockOwnerDeletion on a cron job's runs: CronJobChildOwnerTest"),
          Map.entry(
              "update core/configmaps",
              "OpenShift's console dashboard is rewritten where it differs (an upgrade's"
                  + " dashboard), as the operator's PrometheusRule is in MonitoringDeploymentTest"),
          Map.entry(
              "get thinvol.io/volumemoves", "a move's status write re-reads it on a conflict"),
          Map.entry("patch thinvol.io/volumemoves", "a VolumeMove's finalizer: VolumeMoveTest"),
          Map.entry(
              "update thinvol.io/volumemoves/status", "a VolumeMove's status: VolumeMoveTest"),
          Map.entry(
              "create core/persistentvolumeclaims",
              "a VolumeMove's pre-copy and copy claims, and the moved claim re-created:"
                  + " VolumeMoveTest"),
          Map.entry(
              "delete core/persistentvolumeclaims",
              "a VolumeMove deletes the moved claim and its own claims: VolumeMoveTest"),
          Map.entry(
              "create snapshot.storage.k8s.io/volumesnapshots",
              "a VolumeMove's snapshots: VolumeMoveTest"),
          Map.entry(
              "delete snapshot.storage.k8s.io/volumesnapshots",
              "a VolumeMove's snapshots removed when it ends: VolumeMoveTest"),
          Map.entry(
              "delete snapshot.storage.k8s.io/volumesnapshotcontents",
              "a VolumeMove's cut-over content removed when it ends: VolumeMoveTest"),
          Map.entry(
              "create admissionregistration.k8s.io/validatingadmissionpolicies",
              "a VolumeMove's cut-over keeps the claim's name: VolumeMoveFailureTest"),
          Map.entry(
              "delete admissionregistration.k8s.io/validatingadmissionpolicies",
              "the cut-over's policy removed: VolumeMoveTest"),
          Map.entry(
              "create admissionregistration.k8s.io/validatingadmissionpolicybindings",
              "a VolumeMove's cut-over keeps the claim's name: VolumeMoveFailureTest"),
          Map.entry(
              "delete admissionregistration.k8s.io/validatingadmissionpolicybindings",
              "the cut-over's policy removed: VolumeMoveTest"),
          Map.entry(
              "patch thinvol.io/volumereplications",
              "a VolumeReplication's finalizer: VolumeReplicationTest"),
          Map.entry(
              "update thinvol.io/volumereplications/status",
              "a VolumeReplication's status: VolumeReplicationTest"),
          Map.entry(
              "get thinvol.io/volumereplicationclasses",
              "a VolumeReplication reads its class: VolumeReplicationTest"),
          Map.entry(
              "delete core/pods",
              "a failover deletes the fenced node's pods of the claim:"
                  + " VolumeReplicationEndToEndTest"),
          Map.entry(
              "list apiextensions.k8s.io/customresourcedefinitions",
              "the CRD of a kind beyond StorageBackend that the cluster lacks: CrdMissingTest"),
          Map.entry(
              "watch apiextensions.k8s.io/customresourcedefinitions",
              "the CRD of a kind beyond StorageBackend that the cluster lacks: CrdMissingTest"),
          Map.entry(
              "update thinvol.io/storagebackends/finalizers",
              "blockOwnerDeletion on owned objects (OpenShift's OwnerReferencesPermissionEnforcement)"));

  /** What every authenticated user may ask (the ClusterRole system:basic-user). */
  private static final Set<String> EVERY_USER_MAY =
      Set.of(
          "authorization.k8s.io/selfsubjectrulesreviews",
          "authorization.k8s.io/selfsubjectaccessreviews",
          "authentication.k8s.io/selfsubjectreviews");

  @Test
  void everyRequestIsCoveredAndNothingMoreIsGranted() throws Exception {
    apply("metadata:\n  name: local\n");
    namespaced(DaemonSet.class, "thinvol-local-node");
    playDaemonSetController("thinvol-local-node", 1, 1);
    registerDriver("node-a", "local.thinvol.io");
    awaitReady("local");
    PlayedControllers.createWithStatus(
        client,
        ClusterFixtures.volume(
            "pv-a", BackendNames.driver("local"), "vol-a", "node-a", "apps", "data"));
    cluster.namespace("apps");
    PersistentVolumeClaim claim = ClusterFixtures.boundClaim("apps", "data", "local", "pv-a");
    claim.getMetadata().setAnnotations(Map.of(SchedulePolicy.SCHEDULE, "@daily"));
    PlayedControllers.createWithStatus(client, claim);
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, "local", "node-a", "10.0.0.1", 9070));
    ReclaimSpaceJob job =
        Serialization.unmarshal(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: once\n"
                + "  namespace: apps\nspec:\n  backOffLimit: 0\n  target:\n"
                + "    persistentVolumeClaim: data\n",
            ReclaimSpaceJob.class);
    client.resource(job).create();
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceCronJob\nmetadata:\n"
                    + "  name: weekly\n  namespace: apps\nspec:\n  schedule: \"@weekly\"\n"
                    + "  jobTemplate:\n    spec:\n      target:\n        persistentVolumeClaim: data\n",
                ReclaimSpaceCronJob.class))
        .create();
    await(
        "the job's result",
        () -> {
          ReclaimSpaceJob now =
              client.resources(ReclaimSpaceJob.class).inNamespace("apps").withName("once").get();
          return now.getStatus() != null && now.getStatus().getResult() != null;
        });
    await(
        "the cron job's next run",
        () -> {
          ReclaimSpaceCronJob now =
              client
                  .resources(ReclaimSpaceCronJob.class)
                  .inNamespace("apps")
                  .withName("weekly")
                  .get();
          return now.getStatus() != null && now.getStatus().getNextScheduleTime() != null;
        });
    client.resources(StorageBackend.class).withName("local").delete();
    await("DeletionBlocked", () -> eventReasons("local").contains("DeletionBlocked"));
    PlayedControllers.deleteUnused(client, claim);
    PlayedControllers.deleteUnused(client, client.persistentVolumes().withName("pv-a").get());
    // The DaemonSet goes first; then play the garbage collector and the kubelet stopping its pod.
    await(
        "the DaemonSet gone",
        () ->
            client
                    .resources(DaemonSet.class)
                    .inNamespace(NAMESPACE)
                    .withName("thinvol-local-node")
                    .get()
                == null);
    client
        .pods()
        .inNamespace(NAMESPACE)
        .withName("thinvol-local-node-node-a")
        .withGracePeriod(0)
        .delete();
    await(
        "the backend gone",
        () -> client.resources(StorageBackend.class).withName("local").get() == null);
    await("two lease renewals", () -> leaseRenewals() >= 2);

    List<StrictApiServer.Decision> decisions = operatorDecisions();
    long refused = decisions.stream().filter(d -> d.code() == 403).count();
    System.out.printf(
        "RBAC: %d requests of the operator authorised, %d refused, %d lease renewals%n",
        decisions.size() - refused, refused, leaseRenewals());
    assertThat(refusedOperatorRequests()).isEmpty();
    assertThat(lostLeadership).isFalse();
    Set<ApiRequest> used = operatorRequests();
    List<PolicyRule> cluster = OperatorRbac.clusterRules(settings().openShift());
    List<PolicyRule> own = OperatorRbac.namespaceRules();
    assertThat(used)
        .as("requests the operator made")
        .filteredOn(r -> !EVERY_USER_MAY.contains(r.group() + "/" + r.resource()))
        .filteredOn(
            r ->
                cluster.stream().noneMatch(r::allowedBy)
                    && !(NAMESPACE.equals(r.namespace()) && own.stream().anyMatch(r::allowedBy)))
        .isEmpty();

    Set<String> needed = new TreeSet<>();
    used.forEach(r -> needed.add(r.permission()));
    // A server-side apply that made its object (201) was authorised as a create too.
    decisions.stream()
        .filter(d -> d.request().verb().equals("patch") && d.code() == 201)
        .map(d -> d.request().permission().replaceFirst("^patch ", "create "))
        .forEach(needed::add);
    // A real server checks bind inside the binding's create (the strict one records it apart): on
    // OpenShift the binding to the privileged SCC's role, whose use the operator does not hold.
    if (settings().openShift()
        && decisions.stream()
            .anyMatch(
                d ->
                    d.request().resource().equals("clusterrolebindings")
                        && d.request().verb().matches("create|patch")
                        && d.code() == 201)) {
      needed.add("bind rbac.authorization.k8s.io/clusterroles");
    }
    for (List<PolicyRule> nodeRules :
        List.of(
            RbacModel.clusterRules(),
            RbacModel.namespaceRules(),
            SnapshotMetadataModel.clusterRules(),
            GroupSnapshotModel.clusterRules(),
            OpenShiftMonitoringModel.prometheusRules())) {
      nodeRules.forEach(rule -> names(rule).forEach(needed::add));
    }
    needed.addAll(UNEXERCISED.keySet());
    // An object the operator owns goes through its whole life in some path (created, updated by
    // a spec change, patched by server-side apply in production, recreated, deleted one by one or
    // by label): a resource this run created and deleted by label justifies all of those verbs.
    Set<String> owned = new TreeSet<>();
    for (String name : needed) {
      String resource = name.substring(name.indexOf(' ') + 1);
      if (needed.contains("create " + resource)
          && needed.contains("deletecollection " + resource)) {
        owned.add(resource);
      }
    }
    if (!SnapshotMetadataModel.deployed(settings())) {
      // owned where the cluster serves them: RbacCoverageWithSnapshotMetadataTest
      owned.add("core/services");
      owned.add("cbt.storage.k8s.io/snapshotmetadataservices");
    }
    if (!GroupSnapshotModel.deployed(settings())) {
      // owned where the cluster serves them: RbacCoverageWithGroupSnapshotsTest
      owned.add(GroupSnapshotModel.GROUP + "/volumegroupsnapshotclasses");
    }
    if (!MonitoringApi.deployed(settings())) {
      // owned where the cluster serves them: RbacCoverageWithMonitoringTest
      owned.add(MonitoringApi.GROUP + "/" + MonitoringApi.POD_MONITORS);
      owned.add(MonitoringApi.GROUP + "/" + MonitoringApi.PROMETHEUS_RULES);
    }
    Set<String> granted = new TreeSet<>();
    cluster.forEach(rule -> granted.addAll(names(rule)));
    own.forEach(rule -> granted.addAll(names(rule)));
    assertThat(granted)
        .as("granted without need")
        .filteredOn(name -> !needed.contains(name))
        .filteredOn(name -> !owned.contains(name.substring(name.indexOf(' ') + 1)))
        .isEmpty();
    assertThat(cluster)
        .noneMatch(r -> r.getVerbs().contains("*") || r.getResources().contains("*"));
  }

  private long leaseRenewals() {
    return operatorDecisions().stream()
        .map(StrictApiServer.Decision::request)
        .filter(r -> r.resource().equals("leases") && r.verb().matches("patch|update"))
        .count();
  }

  private Set<ApiRequest> operatorRequests() {
    return drainRequests().stream()
        .collect(
            Collectors.toCollection(
                () -> new TreeSet<>(Comparator.comparing(ApiRequest::toString))));
  }

  private static List<String> names(PolicyRule rule) {
    return rule.getApiGroups().stream()
        .flatMap(
            g ->
                rule.getResources().stream()
                    .flatMap(
                        res ->
                            rule.getVerbs().stream()
                                .map(v -> v + " " + (g.isEmpty() ? "core" : g) + "/" + res)))
        .toList();
  }
}
