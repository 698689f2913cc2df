package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSIStorageCapacity;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Host;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.SmallDisk;
import io.thinvol.e2e.support.Teardown;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * What a second node adds to a claim's life without a move: the scheduler places a claim on the
 * node with room for it through the capacity the drivers publish, and a pod on one node reads a
 * clone and a restore of data written on the other, with only the allocated bytes crossing.
 */
@Order(7)
class CrossNodeTest extends E2eSteps {

  private static final Duration LIMIT = Duration.ofMinutes(3);
  private static final int DISK_MIB = 128;
  private static final String BIG = "bigger-than-host";
  private static final String ORIGIN = "origin";
  private static final String SNAPSHOT = "origin-snap";
  private static final String RESTORED = "far-restored";
  private static final String CLONED = "far-cloned";

  @Test
  @Order(1)
  @DisplayName("capacity: a claim too big for the host's node lands on the other one")
  void capacity() {
    requireBackend();
    String other = world().requireJoinedNode();
    String host = world().settings().hostNode();
    new SmallDisk(Names.CAPACITY_DATA_DIR).create(DISK_MIB);
    try {
      long start = System.nanoTime();
      kube()
          .apply(
              "storagebackend-capacity.yaml",
              vars(
                  "name",
                  Names.CAPACITY_BACKEND,
                  "dataDir",
                  Names.CAPACITY_DATA_DIR.toString(),
                  "storageClass",
                  Names.CAPACITY_CLASS));
      awaitBackendReady(Names.CAPACITY_BACKEND, LIMIT);
      long onHost = awaitCapacity(host);
      long onOther = awaitCapacity(other);
      long request = 512 * MIB;
      assertThat(onHost).as("capacity on " + host).isLessThan(request);
      assertThat(onOther).as("capacity on " + other).isGreaterThan(request);

      claims().create(BIG, Claims.Spec.filesystem(Names.CAPACITY_CLASS, "512Mi"));
      pods().on(null).mounting("big-user", Map.of(BIG, "/data")); // no node chosen by the user
      String node = pods().awaitReady("big-user").getSpec().getNodeName();
      assertThat(node).as("the node the scheduler chose").isEqualTo(other);
      PersistentVolume volume = claims().awaitVolume(BIG);
      assertThat(client().getKubernetesSerialization().asJson(volume.getSpec().getNodeAffinity()))
          .contains("\"" + other + "\"");
      Path image =
          world()
              .nodes()
              .hostPath(other, Names.CAPACITY_DATA_DIR)
              .resolve("volumes")
              .resolve(volume.getSpec().getCsi().getVolumeHandle())
              .resolve("disk.img");
      assertThat(image).as("the image in " + other + "'s data dir").exists();
      pods().sh("big-user", "dd if=/dev/zero of=/data/f bs=1M count=256 2>/dev/null && sync");
      figure(
          "capacity "
              + onHost / MIB
              + " MiB on "
              + host
              + ", "
              + onOther / MIB
              + " MiB on "
              + other
              + ": a 512 MiB claim bound on "
              + other
              + " and 256 MiB written there, "
              + seconds(start));
    } finally {
      new Teardown(world())
          .backendOnSmallDisk(
              Names.CAPACITY_BACKEND,
              Names.CAPACITY_CLASS,
              Names.CAPACITY_DRIVER,
              Names.CAPACITY_DATA_DIR);
    }
  }

  @Test
  @Order(2)
  @DisplayName("cross-node clone and restore: read on the other node, only allocated bytes sent")
  void cloneAndRestore() {
    requireBackend();
    try {
      String other = world().requireJoinedNode();
      claims().create(ORIGIN, Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi"));
      pods().mounting("origin-writer", Map.of(ORIGIN, "/data"));
      pods()
          .sh(
              "origin-writer",
              "dd if=/dev/urandom of=/data/file bs=1M count=64 2>/dev/null && sync");
      String sum = pods().sha256("origin-writer", "/data/file");
      long allocated = Host.allocatedBytes(Names.image(claims().volumeHandle(ORIGIN)));
      kube()
          .apply(
              "volumesnapshot.yaml",
              vars("name", SNAPSHOT, "class", Names.BACKEND, "claim", ORIGIN));
      SnapshotTest.awaitReady(Resources.VOLUME_SNAPSHOT, SNAPSHOT);
      pods().delete("origin-writer");

      long sentBefore = world().nodes().bytesSentTo(other);
      long start = System.nanoTime();
      claims()
          .create(
              RESTORED,
              Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi").from("VolumeSnapshot", SNAPSHOT));
      claims()
          .create(
              CLONED,
              Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi")
                  .from("PersistentVolumeClaim", ORIGIN));
      pods().on(other).mounting("far-reader", Map.of(RESTORED, "/restored", CLONED, "/cloned"));
      String readIn = seconds(start);
      long sent = world().nodes().bytesSentTo(other) - sentBefore;
      assertThat(pods().sha256("far-reader", "/restored/file"))
          .as("the restore's data")
          .isEqualTo(sum);
      assertThat(pods().sha256("far-reader", "/cloned/file")).as("the clone's data").isEqualTo(sum);
      for (String claim : new String[] {RESTORED, CLONED}) {
        Path image =
            world()
                .nodes()
                .hostPath(other, Names.DATA_DIR)
                .resolve("volumes")
                .resolve(claims().volumeHandle(claim))
                .resolve("disk.img");
        assertThat(Host.allocatedBytes(image))
            .as("the " + claim + " image's allocation on " + other)
            .isLessThanOrEqualTo(allocated + 8 * MIB);
      }
      // Two copies of what the origin holds crossed to the other node, plus the protocols' framing
      // and the cluster's own traffic meanwhile; never the 1 GiB the claims are.
      double perAllocated = sent / (2.0 * allocated);
      assertThat(perAllocated)
          .as("bytes sent to " + other + " per allocated byte copied")
          .isLessThan(1.10);
      figure(
          String.format(
              java.util.Locale.ROOT,
              "restore and clone of a 1 GiB claim holding %d MiB read on %s after %s, sha256 equal;"
                  + " %.1f MiB crossed to it: %.3f per allocated byte copied",
              allocated / MIB,
              other,
              readIn,
              sent / (double) MIB,
              perAllocated));
    } finally {
      cleanUp(
          () -> pods().delete("origin-writer"),
          () -> pods().delete("far-reader"),
          () ->
              Resources.of(client(), Resources.VOLUME_SNAPSHOT)
                  .inNamespace(Names.APPS)
                  .withName(SNAPSHOT)
                  .delete(),
          () -> deleteClaims(ORIGIN, RESTORED, CLONED));
    }
  }

  /** Deletes claims (no pod uses them) and waits until their volumes are gone from the nodes. */
  static void deleteClaims(String... names) {
    for (String name : names) {
      client().persistentVolumeClaims().inNamespace(Names.APPS).withName(name).delete();
    }
    Waits.untilTrue(
        "the claims' volumes to be deleted",
        LIMIT,
        () ->
            client().persistentVolumes().list().getItems().stream()
                .filter(pv -> pv.getSpec().getClaimRef() != null)
                .noneMatch(
                    pv ->
                        Names.APPS.equals(pv.getSpec().getClaimRef().getNamespace())
                            && java.util.List.of(names)
                                .contains(pv.getSpec().getClaimRef().getName())));
  }

  /** The capacity the backend's driver publishes for its class on {@code node}. */
  private static long awaitCapacity(String node) {
    return Waits.until(
        "the capacity of " + Names.CAPACITY_CLASS + " on " + node,
        LIMIT,
        () ->
            client()
                .storage()
                .v1()
                .csiStorageCapacities()
                .inNamespace(Names.OPERATOR)
                .list()
                .getItems()
                .stream()
                .filter(c -> Names.CAPACITY_CLASS.equals(c.getStorageClassName()))
                .filter(
                    c ->
                        c.getNodeTopology() != null
                            && c.getNodeTopology().getMatchLabels().containsValue(node))
                .map(CSIStorageCapacity::getCapacity)
                .filter(q -> q != null)
                .map(q -> Quantity.getAmountInBytes(q).longValue())
                .findFirst());
  }
}
