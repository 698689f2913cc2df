package io.thinvol.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes everything the suite made, whatever state a run left it in, so that the cluster is ready
 * for the next run: the users' objects first (so the driver can still delete their volumes), then
 * the StorageBackends, the operator, what the docs say to remove by hand, and the suite's own data
 * dir and MonitoringTest's small disk once nothing on the host uses them. Objects whose controllers
 * are gone are released by removing their finalizers, which is logged.
 */
public final class Teardown {

  private static final Logger log = LoggerFactory.getLogger(Teardown.class);
  private static final Duration USERS_LIMIT = Duration.ofMinutes(3);
  private static final Duration BACKEND_LIMIT = Duration.ofMinutes(2);

  private final World world;
  private final KubernetesClient client;

  public Teardown(World world) {
    this.world = world;
    this.client = world.kube().client();
  }

  public void run() {
    step("the users' namespace", this::users);
    step(
        "the VolumeAttributesClass",
        () ->
            Resources.of(client, Resources.VOLUME_ATTRIBUTES_CLASS)
                .withLabel(Names.INSTALLED_BY)
                .delete());
    step("the StorageBackends", () -> Names.BACKENDS.forEach(this::backend));
    step("the driver's volumes and copies", this::driversObjects);
    step(
        "the operator",
        () -> new OlmBundle(world.kube(), world.settings().repository()).uninstall(BACKEND_LIMIT));
    step("the documented leftovers", () -> DocumentedLeftovers.remove(client));
    step("the data dir", () -> removeUnused(Names.DATA_DIR));
    step("the joined node's data dir", this::removeJoinedNodesDataDir);
    step("csi-sanity's paths", () -> removeUnused(Names.SANITY_WORK));
    step("the small disks", () -> Names.SMALL_DISKS.forEach(Teardown::removeSmallDisk));
  }

  /**
   * A backend on a small disk of its own (MonitoringTest's, CrossNodeTest's) and what it made: the
   * pods and claims of its class, the backend, and the small disk of its data dir.
   */
  public void backendOnSmallDisk(String backend, String storageClass, String driver, Path dataDir) {
    step(backend + "'s pods and claims", () -> claimsOf(storageClass, driver));
    step("StorageBackend " + backend, () -> backend(backend));
    step("the small disk " + dataDir, () -> removeSmallDisk(dataDir));
  }

  private void claimsOf(String storageClass, String driver) {
    List<String> claims =
        client.persistentVolumeClaims().inNamespace(Names.APPS).list().getItems().stream()
            .filter(c -> storageClass.equals(c.getSpec().getStorageClassName()))
            .map(c -> c.getMetadata().getName())
            .toList();
    client.pods().inNamespace(Names.APPS).list().getItems().stream()
        .filter(
            p ->
                p.getSpec().getVolumes().stream()
                    .anyMatch(
                        v ->
                            v.getPersistentVolumeClaim() != null
                                && claims.contains(v.getPersistentVolumeClaim().getClaimName())))
        .forEach(p -> client.resource(p).delete());
    claims.forEach(
        c -> client.persistentVolumeClaims().inNamespace(Names.APPS).withName(c).delete());
    Waits.untilTrue(
        "the PersistentVolumes of " + driver + " to be deleted",
        USERS_LIMIT,
        () ->
            client.persistentVolumes().list().getItems().stream()
                .noneMatch(
                    pv ->
                        pv.getSpec().getCsi() != null
                            && driver.equals(pv.getSpec().getCsi().getDriver())));
  }

  /** Unmounts and removes a small disk, unless a loop device still uses an image on it. */
  private static void removeSmallDisk(Path mountPoint) {
    SmallDisk disk = new SmallDisk(mountPoint);
    List<Host.Loop> loops = Host.loopsOfIds(imageIds(mountPoint));
    if (!loops.isEmpty()) {
      log.error("{} is still in use, left as it is: loop devices {}", disk.mountPoint(), loops);
      return;
    }
    disk.remove();
  }

  private void users() {
    if (client.namespaces().withName(Names.APPS).get() == null) {
      return;
    }
    // one by one: a kind whose CRD is gone answers 404, the others must still go
    Resources.APPS_KINDS.forEach(
        kind ->
            step(
                kind.getKind() + "s",
                () -> Resources.of(client, kind).inNamespace(Names.APPS).delete()));
    client.namespaces().withName(Names.APPS).delete();
    release(
        "namespace " + Names.APPS,
        USERS_LIMIT,
        () -> client.namespaces().withName(Names.APPS).get() == null,
        () -> Resources.APPS_KINDS.stream().flatMap(this::usersObjects).toList());
  }

  private void backend(String name) {
    Resource<GenericKubernetesResource> backend =
        Resources.of(client, Resources.STORAGE_BACKEND).withName(name);
    if (backend.get() == null) {
      return;
    }
    backend.delete();
    release(
        "StorageBackend " + name,
        BACKEND_LIMIT,
        () -> backend.get() == null,
        () -> List.of(backend));
  }

  /**
   * PersistentVolumes and snapshot contents of the suite's driver that outlived it (the node pods
   * are gone, nobody will delete them): released and deleted.
   */
  private void driversObjects() {
    List<Resource<GenericKubernetesResource>> left =
        Stream.of(
                Resources.PERSISTENT_VOLUME,
                Resources.VOLUME_SNAPSHOT_CONTENT,
                Resources.VOLUME_GROUP_SNAPSHOT_CONTENT)
            .flatMap(
                kind ->
                    Resources.of(client, kind).list().getItems().stream()
                        .filter(o -> Names.DRIVERS.contains(Resources.driver(o)))
                        .map(o -> Resources.of(client, kind).withName(o.getMetadata().getName())))
            .toList();
    left.forEach(Resource::delete);
    release(
        "the driver's volumes and contents",
        USERS_LIMIT,
        () -> left.stream().allMatch(r -> r.get() == null),
        () -> left);
  }

  /**
   * Waits for {@code gone}; where it does not come (the controller that would finish the deletion
   * is not running), removes the finalizers of what is left and waits again.
   */
  private static void release(
      String what,
      Duration within,
      BooleanSupplier gone,
      Supplier<List<Resource<GenericKubernetesResource>>> holders) {
    try {
      Waits.untilTrue(what + " to be deleted", within, gone);
    } catch (AssertionError stuck) {
      log.warn(
          "{} is not deleted after {} s: removing the finalizers of what holds it",
          what,
          within.toSeconds());
      holders.get().forEach(Teardown::dropFinalizers);
      Waits.untilTrue(what + " to be deleted without finalizers", within, gone);
    }
  }

  private static void dropFinalizers(Resource<GenericKubernetesResource> resource) {
    try {
      GenericKubernetesResource object = resource.get();
      if (object != null && !object.getMetadata().getFinalizers().isEmpty()) {
        log.warn(
            "removing finalizers {} of {} {}",
            object.getMetadata().getFinalizers(),
            object.getKind(),
            object.getMetadata().getName());
        resource.edit(
            o -> {
              o.getMetadata().setFinalizers(List.of());
              return o;
            });
      }
    } catch (RuntimeException e) {
      log.warn("cannot remove the finalizers: {}", e.toString());
    }
  }

  /** The objects of a kind in the users' namespace; none when its CRD is gone. */
  private Stream<Resource<GenericKubernetesResource>> usersObjects(
      io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind) {
    try {
      return Resources.of(client, kind).inNamespace(Names.APPS).resources().toList().stream();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Stream.empty();
      }
      throw e;
    }
  }

  /** Removes one of the suite's own directories, unless a loop device or a mount still uses it. */
  private static void removeUnused(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    List<Host.Loop> loops = Host.loopsOfIds(imageIds(directory));
    List<String> mounts = Host.mountsNaming(directory.toString());
    if (!loops.isEmpty() || !mounts.isEmpty()) {
      log.error(
          "{} is still in use, left as it is: loop devices {}, mounts {}",
          directory,
          loops,
          mounts);
      return;
    }
    Host.deleteTree(directory);
  }

  /**
   * The suite's data dir on a node the kit joined, unless a loop device or a mount there uses it.
   */
  private void removeJoinedNodesDataDir() {
    KitNodes nodes = world.nodes();
    nodes
        .joinedNode()
        .ifPresent(
            node -> {
              Path directory = nodes.hostPath(node, Names.DATA_DIR);
              List<Host.Loop> loops = Host.loopsOfIds(imageIds(directory));
              List<String> mounts = nodes.mountsNaming(node, Names.DATA_DIR.toString());
              if (!Files.exists(directory)) {
                return;
              }
              if (!loops.isEmpty() || !mounts.isEmpty()) {
                log.error(
                    "{} is still in use on {}, left as it is: loop devices {}, mounts {}",
                    directory,
                    node,
                    loops,
                    mounts);
                return;
              }
              Host.deleteTree(directory);
            });
  }

  /** The ids of the volumes and snapshots whose images are in a data dir (their folders' names). */
  private static List<String> imageIds(Path directory) {
    return Host.filesUnder(directory).stream()
        .filter(file -> file.getFileName().toString().equals("disk.img"))
        .map(file -> file.getParent().getFileName().toString())
        .toList();
  }

  private static void step(String what, Runnable action) {
    try {
      action.run();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) { // a kind whose CRD is gone has nothing left to remove
        log.error("teardown of {} failed: {}", what, e.toString());
      }
    } catch (RuntimeException | AssertionError e) {
      log.error("teardown of {} failed: {}", what, e.toString());
    }
  }
}
