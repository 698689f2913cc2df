package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.operator.model.VolumeSnapshotClass;
import io.thinvol.testing.ApiRequest;
import io.thinvol.testing.PlayedControllers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Deploying a StorageBackend, reporting its state, and deleting it. */
class StorageBackendReconcilerTest extends MockClusterTest {

  @Test
  @DisplayName("The health and metrics endpoints answer once the operator runs")
  void health() throws Exception {
    for (String path : new String[] {"/healthz", "/readyz", "/metrics"}) {
      assertThat(get(path).statusCode()).as(path).isEqualTo(200);
    }
  }

  private double reconciliations() {
    return Double.parseDouble(
        get("/metrics")
            .body()
            .lines()
            .filter(l -> l.startsWith("thinvol_operator_reconciliations_total "))
            .findFirst()
            .orElseThrow()
            .split(" ")[1]);
  }

  @Test
  @DisplayName("Applying a StorageBackend deploys every object; status goes Progressing to Ready")
  void deploysAndReports() {
    StorageBackend backend =
        Serialization.unmarshal(
            """
            apiVersion: thinvol.io/v1alpha1
            kind: StorageBackend
            metadata:
              name: local
            spec:
              storageClasses:
              - name: thin
                default: true
              - name: thin-retain
                reclaimPolicy: Retain
            """,
            StorageBackend.class);
    client.resource(backend).create();

    DaemonSet daemonSet = namespaced(DaemonSet.class, "thinvol-local-node");
    assertThat(daemonSet.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo("thinvol-local-node");
    assertThat(daemonSet.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("StorageBackend"));
    namespaced(ServiceAccount.class, "thinvol-local-node");
    namespaced(Role.class, "thinvol-local-node");
    namespaced(RoleBinding.class, "thinvol-local-node");
    Secret tls = namespaced(Secret.class, "thinvol-addons-tls");
    assertThat(tls.getType()).isEqualTo("kubernetes.io/tls");
    clusterScoped(ClusterRole.class, Names.NODE_CLUSTER_ROLE);
    assertThat(
            clusterScoped(ClusterRoleBinding.class, Names.NODE_CLUSTER_ROLE_BINDING).getSubjects())
        .extracting(s -> s.getNamespace() + "/" + s.getName())
        .containsExactly(NAMESPACE + "/thinvol-local-node");
    CSIDriver driver = clusterScoped(CSIDriver.class, "local.thinvol.io");
    assertThat(driver.getSpec().getAttachRequired()).isFalse();
    assertThat(clusterScoped(StorageClass.class, "thin").getVolumeBindingMode())
        .isEqualTo("WaitForFirstConsumer");
    assertThat(clusterScoped(StorageClass.class, "thin-retain").getReclaimPolicy())
        .isEqualTo("Retain");
    VolumeSnapshotClass snapshotClass = clusterScoped(VolumeSnapshotClass.class, "local");
    assertThat(snapshotClass.getDriver()).isEqualTo("local.thinvol.io");
    assertThat(snapshotClass.getDeletionPolicy()).isEqualTo("Delete");

    StorageBackend progressing =
        await(
            "a status",
            () -> {
              StorageBackend current =
                  client.resources(StorageBackend.class).withName("local").get();
              return current.getStatus() != null ? current : null;
            });
    assertThat(progressing.getStatus().getDriverName()).isEqualTo("local.thinvol.io");
    assertThat(StatusModel.isReady(progressing.getStatus())).isFalse();

    playDaemonSetController("thinvol-local-node", 2, 2);

    // Both pods run, but only node-a's kubelet has registered the driver so far.
    registerDriver("node-a", "local.thinvol.io");
    PlayedControllers.createWithStatus(
        client,
        new PodBuilder()
            .withNewMetadata()
            .withName("thinvol-local-node-b1")
            .withNamespace(NAMESPACE)
            .withLabels(Names.nodePodLabels(progressing))
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-b")
            .addNewContainer()
            .withName("driver")
            .withImage("thinvol")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("driver")
            .withReady(true)
            .endContainerStatus()
            .endStatus()
            .build());
    StorageBackend unregistered =
        await(
            "Ready=False/NotRegistered",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("local").get();
              return now.getStatus() != null
                      && now.getStatus().getNodeProblems() != null
                      && !now.getStatus().getNodeProblems().isEmpty()
                  ? now
                  : null;
            });
    assertThat(unregistered.getStatus().getNodes().getRegistered()).isEqualTo(1);
    assertThat(unregistered.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .contains("Ready=False/NotRegistered");
    assertThat(unregistered.getStatus().getNodeProblems())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getNode()).isEqualTo("node-b");
              assertThat(p.getProblem()).contains("has not registered local.thinvol.io");
            });

    registerDriver("node-b", "local.thinvol.io");
    StorageBackend ready = awaitReady("local");
    assertThat(ready.getStatus().getNodes().getReady()).isEqualTo(2);
    assertThat(ready.getStatus().getNodes().getRegistered()).isEqualTo(2);
    assertThat(ready.getStatus().getNodeProblems()).isNull();
    assertThat(ready.getStatus().getConditions())
        .extracting(c -> c.getType() + "=" + c.getStatus() + "/" + c.getReason())
        .containsExactlyInAnyOrder(
            "Ready=True/AllNodesReady",
            "Progressing=False/Deployed",
            "Degraded=False/AllNodesReady");
    await("a Ready Event", () -> eventReasons("local").contains("Ready"));

    assertThat(get("/metrics").body())
        .contains("# TYPE thinvol_operator_reconciliations_total counter");
    assertThat(reconciliations()).isGreaterThanOrEqualTo(2);
  }

  @Test
  @DisplayName("Reconciles of an unchanged spec write nothing; a spec change rolls the DaemonSet")
  void steadyThenRolls() throws InterruptedException {
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: steady\n"
                    + "spec:\n  logLevel: INFO\n",
                StorageBackend.class))
        .create();
    namespaced(DaemonSet.class, "thinvol-steady-node");
    playDaemonSetController("thinvol-steady-node", 1, 1);
    registerDriver("node-a", "steady.thinvol.io");
    awaitReady("steady");
    Thread.sleep(1000); // let the reconcile that saw Ready finish its writes
    drainRequests();

    // Each DaemonSet status change is an event that reconciles the backend (the metrics count it).
    int reconciles = 5;
    Map<String, String> versions = versions();
    List<ApiRequest> seen = new ArrayList<>();
    for (int i = 0; i < reconciles; i++) {
      double before = reconciliations();
      playDaemonSetController("thinvol-steady-node", 1, i % 2);
      await("reconcile " + i, () -> reconciliations() > before);
      seen.addAll(drainRequests());
    }
    Thread.sleep(500);
    seen.addAll(drainRequests());
    assertThat(
            seen.stream()
                .filter(r -> !r.verb().matches("get|list|watch"))
                .filter(r -> !r.resource().equals("leases")) // leader election renews its lease
                .map(ApiRequest::toString))
        .as("writes by the operator over %d reconciles of an unchanged spec", reconciles)
        .isEmpty();
    assertThat(versions())
        .as("resourceVersions over %d reconciles of an unchanged spec", reconciles)
        .isEqualTo(versions);

    editSpec(
        "steady",
        spec -> spec.setLogLevel(io.thinvol.api.v1alpha1.StorageBackendSpec.LogLevel.DEBUG));
    DaemonSet rolled =
        await(
            "the DaemonSet to roll",
            () -> {
              DaemonSet now =
                  client
                      .resources(DaemonSet.class)
                      .inNamespace(NAMESPACE)
                      .withName("thinvol-steady-node")
                      .get();
              return now.getSpec()
                      .getTemplate()
                      .getSpec()
                      .getContainers()
                      .get(0)
                      .getArgs()
                      .contains("--log-level=DEBUG")
                  ? now
                  : null;
            });
    assertThat(
            rolled.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .as("one node at a time")
        .isEqualTo(1);
  }

  @Test
  @DisplayName("A CSIDriver with a different immutable field is recreated, not patched")
  void csiDriverRecreated() throws IOException {
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: old\n",
                StorageBackend.class))
        .create();
    CSIDriver original = clusterScoped(CSIDriver.class, "old.thinvol.io");
    // As another version might have left it: attachRequired cannot change, so it was made so.
    restartOperator(
        settings(),
        () -> {
          client.resource(original).withGracePeriod(0).delete();
          client.resource(original).waitUntilCondition(Objects::isNull, 30, TimeUnit.SECONDS);
          CSIDriver left = Serialization.clone(original);
          left.getMetadata().setResourceVersion(null);
          left.getMetadata().setUid(null);
          left.getSpec().setAttachRequired(true);
          client.resource(left).create();
        });

    CSIDriver recreated =
        await(
            "a recreated CSIDriver",
            () -> {
              CSIDriver now = client.resources(CSIDriver.class).withName("old.thinvol.io").get();
              return now != null
                      && Boolean.FALSE.equals(now.getSpec().getAttachRequired())
                      && !now.getMetadata().getUid().equals(original.getMetadata().getUid())
                  ? now
                  : null;
            });
    assertThat(recreated.getSpec().getStorageCapacity()).isTrue();
  }

  @Test
  @DisplayName(
      "Deletion waits while a claim uses the backend, says which, then removes every object")
  void deletionWaitsForVolumes() {
    client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: busy\n",
                StorageBackend.class))
        .create();
    namespaced(DaemonSet.class, "thinvol-busy-node");
    await(
        "the finalizer",
        () ->
            !client
                .resources(StorageBackend.class)
                .withName("busy")
                .get()
                .getMetadata()
                .getFinalizers()
                .isEmpty());
    cluster.namespace("apps");
    client
        .persistentVolumeClaims()
        .inNamespace("apps")
        .resource(claim("apps", "data", "busy"))
        .create();

    client.resources(StorageBackend.class).withName("busy").delete();
    StorageBackend blocked =
        await(
            "DeletionBlocked",
            () -> {
              StorageBackend now = client.resources(StorageBackend.class).withName("busy").get();
              return now != null
                      && now.getStatus() != null
                      && StatusModel.message(now.getStatus(), StatusModel.DEGRADED)
                          .contains("PVC apps/data")
                  ? now
                  : null;
            });
    assertThat(blocked.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(blocked.getStatus().getConditions())
        .anySatisfy(c -> assertThat(c.getReason()).isEqualTo("DeletionBlocked"));
    await("a DeletionBlocked Event", () -> eventReasons("busy").contains("DeletionBlocked"));

    PlayedControllers.deleteUnused(
        client, client.persistentVolumeClaims().inNamespace("apps").withName("data").get());
    await(
        "the backend to go",
        () -> client.resources(StorageBackend.class).withName("busy").get() == null);
    // The mock server has no garbage collector: what is gone here was deleted by the operator.
    for (Class<? extends HasMetadata> type :
        List.of(
            DaemonSet.class,
            Secret.class,
            ServiceAccount.class,
            Role.class,
            RoleBinding.class,
            ClusterRole.class,
            ClusterRoleBinding.class,
            CSIDriver.class,
            StorageClass.class,
            VolumeSnapshotClass.class)) {
      assertThat(
              client
                  .resources(type)
                  .inAnyNamespace()
                  .withLabel(Names.BACKEND_LABEL, "busy")
                  .list()
                  .getItems())
          .as("%s left behind", type.getSimpleName())
          .isEmpty();
    }
  }
}
