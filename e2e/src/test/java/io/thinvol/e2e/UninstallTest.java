package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.thinvol.e2e.support.DocumentedLeftovers;
import io.thinvol.e2e.support.Host;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.OlmBundle;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * docs/install.md's "Uninstalling", step by step, and what it leaves on the host and in the API.
 */
@Order(13)
class UninstallTest extends E2eSteps {

  private static final Duration DELETE_LIMIT = Duration.ofMinutes(3);
  private static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  @Test
  @Order(1)
  @DisplayName("deletion of everything, StorageBackend last: nothing left but what the docs list")
  void uninstall() {
    requireBackend();
    long start = System.nanoTime();
    // Every image the suite made, by id: the loop devices left are looked for by them.
    List<String> images =
        Stream.concat(
                driversObjects(Resources.PERSISTENT_VOLUME).stream()
                    .map(pv -> field(pv, "spec", "csi", "volumeHandle")),
                driversObjects(Resources.VOLUME_SNAPSHOT_CONTENT).stream()
                    .map(c -> field(c, "status", "snapshotHandle")))
            .flatMap(Optional::stream)
            .map(String::valueOf)
            .toList();
    // 1. the users' moves, snapshots, pods and claims; their volumes and copies go with them.
    Resources.of(client(), Resources.VOLUME_MOVE).inNamespace(Names.APPS).delete();
    for (var kind : List.of(Resources.VOLUME_GROUP_SNAPSHOT, Resources.VOLUME_SNAPSHOT)) {
      Resources.of(client(), kind).inNamespace(Names.APPS).delete();
    }
    Waits.untilTrue(
        "the driver's VolumeSnapshotContents and VolumeGroupSnapshotContents to be deleted",
        DELETE_LIMIT,
        () ->
            driversObjects(
                    Resources.VOLUME_SNAPSHOT_CONTENT, Resources.VOLUME_GROUP_SNAPSHOT_CONTENT)
                .isEmpty());
    client().pods().inNamespace(Names.APPS).delete();
    Resources.of(client(), Resources.RECLAIM_SPACE_JOB).inNamespace(Names.APPS).delete();
    client().persistentVolumeClaims().inNamespace(Names.APPS).delete();
    Waits.untilTrue(
        "the driver's PersistentVolumes to be deleted",
        DELETE_LIMIT,
        () ->
            client().persistentVolumes().list().getItems().stream()
                .noneMatch(
                    pv ->
                        pv.getSpec().getCsi() != null
                            && Names.DRIVER.equals(pv.getSpec().getCsi().getDriver())));
    Resources.of(client(), Resources.VOLUME_ATTRIBUTES_CLASS)
        .withLabel(Names.INSTALLED_BY)
        .delete();
    String usersGone = seconds(start);

    // 2. the StorageBackend.
    long backendStart = System.nanoTime();
    Resources.of(client(), Resources.STORAGE_BACKEND).withName(Names.BACKEND).delete();
    Waits.untilTrue(
        "StorageBackend " + Names.BACKEND + " to be deleted",
        DELETE_LIMIT,
        () -> get(Resources.STORAGE_BACKEND, null, Names.BACKEND) == null);
    String backendGone = seconds(backendStart);
    kube().awaitEvent("StorageBackend", null, Names.BACKEND, "Deleted", Duration.ofSeconds(30));

    // 3. and 4. the operator (the CSV) and the CRDs.
    new OlmBundle(kube(), world().settings().repository()).uninstall(DELETE_LIMIT);

    assertThat(Host.loopsOfIds(images)).as("loop devices of the suite's images").isEmpty();
    assertThat(Host.mountsNaming(Names.DATA_DIR.toString(), Names.DRIVER)).as("mounts").isEmpty();
    assertThat(
            Stream.of("volumes", "snapshots", "groups")
                .flatMap(d -> Host.filesUnder(Names.DATA_DIR.resolve(d)).stream()))
        .as("images and records under the data dir")
        .isEmpty();
    world()
        .nodes()
        .joinedNode()
        .ifPresent(
            node -> {
              Path dataDir = world().nodes().hostPath(node, Names.DATA_DIR);
              assertThat(
                      Stream.of("volumes", "snapshots", "groups")
                          .flatMap(d -> Host.filesUnder(dataDir.resolve(d)).stream()))
                  .as("images and records under " + node + "'s data dir")
                  .isEmpty();
              assertThat(
                      world().nodes().mountsNaming(node, Names.DATA_DIR.toString(), Names.DRIVER))
                  .as("mounts on " + node)
                  .isEmpty();
            });
    assertThat(apiLeftovers())
        .as("objects the uninstall left that docs/install.md does not list")
        .isEmpty();
    figure(
        "users' objects gone in "
            + usersGone
            + ", StorageBackend in "
            + backendGone
            + " (Event Deleted); host: no loop device,"
            + " mount or image; API: only the ClusterRole, bindings, Secrets and Lease install.md"
            + " lists");
  }

  /** What is left of the backend and the operator, other than what the docs list. */
  private static List<String> apiLeftovers() {
    List<String> left = new ArrayList<>();
    add(left, client().storage().v1().csiDrivers().withName(Names.DRIVER).get());
    client().storage().v1().storageClasses().list().getItems().stream()
        .filter(c -> Names.DRIVER.equals(c.getProvisioner()))
        .forEach(c -> add(left, c));
    driversObjects(
            Resources.VOLUME_SNAPSHOT_CLASS,
            Resources.VOLUME_GROUP_SNAPSHOT_CLASS,
            Resources.PERSISTENT_VOLUME,
            Resources.VOLUME_SNAPSHOT_CONTENT,
            Resources.VOLUME_GROUP_SNAPSHOT_CONTENT)
        .forEach(o -> add(left, o));
    client()
        .rbac()
        .clusterRoles()
        .withLabel(MANAGED_BY, "thinvol-operator")
        .list()
        .getItems()
        .stream()
        .filter(r -> !DocumentedLeftovers.CLUSTER_ROLES.contains(r.getMetadata().getName()))
        .forEach(r -> add(left, r));
    client()
        .rbac()
        .clusterRoleBindings()
        .withLabel(MANAGED_BY, "thinvol-operator")
        .list()
        .getItems()
        .stream()
        .filter(r -> !DocumentedLeftovers.CLUSTER_ROLE_BINDINGS.contains(r.getMetadata().getName()))
        .forEach(r -> add(left, r));
    String ns = Names.OPERATOR;
    Stream.of(
            client().apps().daemonSets().inNamespace(ns).list().getItems(),
            client().pods().inNamespace(ns).list().getItems(),
            client().services().inNamespace(ns).list().getItems(),
            client().network().networkPolicies().inNamespace(ns).list().getItems(),
            client().rbac().roles().inNamespace(ns).list().getItems(),
            client().rbac().roleBindings().inNamespace(ns).list().getItems(),
            client().storage().v1().csiStorageCapacities().inNamespace(ns).list().getItems())
        .flatMap(List::stream)
        .forEach(o -> add(left, o));
    client().serviceAccounts().inNamespace(ns).list().getItems().stream()
        .filter(a -> !a.getMetadata().getName().equals("default"))
        .forEach(a -> add(left, a));
    client().leases().inNamespace(ns).list().getItems().stream()
        .filter(l -> !DocumentedLeftovers.LEASES.contains(l.getMetadata().getName()))
        .forEach(l -> add(left, l));
    client().secrets().inNamespace(ns).list().getItems().stream()
        .filter(s -> !DocumentedLeftovers.SECRETS.contains(s.getMetadata().getName()))
        .forEach(s -> add(left, s));
    return left;
  }

  /** The objects of these kinds that belong to the suite's driver. */
  private static List<GenericKubernetesResource> driversObjects(
      ResourceDefinitionContext... kinds) {
    return Stream.of(kinds)
        .flatMap(kind -> Resources.of(client(), kind).list().getItems().stream())
        .filter(o -> Names.DRIVER.equals(Resources.driver(o)))
        .toList();
  }

  private static void add(List<String> left, HasMetadata object) {
    if (object != null) {
      left.add(
          object.getKind()
              + " "
              + Optional.ofNullable(object.getMetadata().getNamespace())
                  .map(n -> n + "/")
                  .orElse("")
              + object.getMetadata().getName());
    }
  }
}
