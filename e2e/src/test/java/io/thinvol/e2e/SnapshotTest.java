package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.thinvol.e2e.support.Claims;
import io.thinvol.e2e.support.Host;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Resources;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Snapshots, restores, a group snapshot and a clone, each checked by the data's checksum. */
@Order(4)
class SnapshotTest extends E2eSteps {

  private static final Duration READY_LIMIT = Duration.ofMinutes(3);
  private static final String GROUP = "e2e-group";

  @Test
  @Order(1)
  @DisplayName("VolumeSnapshot ready")
  void snapshot() {
    world().require("data.handle");
    long start = System.nanoTime();
    kube()
        .apply(
            "volumesnapshot.yaml",
            vars("name", "data-snap", "claim", ReclaimTest.DATA, "class", Names.BACKEND));
    GenericKubernetesResource snapshot = awaitReady(Resources.VOLUME_SNAPSHOT, "data-snap");
    String readyIn = seconds(start);
    String content =
        (String) field(snapshot, "status", "boundVolumeSnapshotContentName").orElseThrow();
    String handle =
        (String)
            field(get(Resources.VOLUME_SNAPSHOT_CONTENT, null, content), "status", "snapshotHandle")
                .orElseThrow();
    Path copy = Names.DATA_DIR.resolve("snapshots").resolve(handle).resolve("disk.img");
    assertThat(copy).exists();
    kube()
        .awaitEvent(
            "VolumeSnapshot", Names.APPS, "data-snap", "SnapshotReady", Duration.ofSeconds(30));
    kube().describe("volumesnapshot", Names.APPS, "data-snap");
    world().remember("snapshot", "data-snap");
    figure(
        "readyToUse in "
            + readyIn
            + ", restoreSize "
            + field(snapshot, "status", "restoreSize").orElse("?")
            + "; the copy allocates "
            + Host.allocatedBytes(copy)
            + " B on the host");
  }

  @Test
  @Order(2)
  @DisplayName("restore -> checksum")
  void restore() {
    String snapshot = world().require("snapshot");
    long start = System.nanoTime();
    claims()
        .create(
            "restored",
            Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi").from("VolumeSnapshot", snapshot));
    pods().mounting("restorer", Map.of("restored", "/data"));
    String sum = pods().sha256("restorer", ReclaimTest.KEEP);
    assertThat(sum).isEqualTo(world().require("data.keep.sha256"));
    pods().delete("restorer");
    figure(
        "restored claim mounted in "
            + seconds(start)
            + "; sha256 "
            + sum.substring(0, 12)
            + "… equal to the source's");
  }

  @Test
  @Order(3)
  @DisplayName("VolumeGroupSnapshot of two claims")
  void group() {
    requireBackend();
    Claims.Spec spec =
        Claims.Spec.filesystem(Names.EXT4_CLASS, "128Mi")
            .labelled(Map.of("app.kubernetes.io/part-of", GROUP));
    claims().create("g1", spec);
    claims().create("g2", spec);
    pods().mounting("group-writer", Map.of("g1", "/g1", "g2", "/g2"));
    pods()
        .sh(
            "group-writer",
            "for g in g1 g2; do dd if=/dev/urandom of=/$g/file bs=1M count=16 2>/dev/null; done; sync");
    String g2Sum = pods().sha256("group-writer", "/g2/file");
    long start = System.nanoTime();
    kube()
        .apply(
            "volumegroupsnapshot.yaml",
            vars("name", "together", "class", Names.BACKEND, "group", GROUP));
    awaitReady(Resources.VOLUME_GROUP_SNAPSHOT, "together");
    String readyIn = seconds(start);
    List<GenericKubernetesResource> members =
        Resources.of(client(), Resources.VOLUME_SNAPSHOT)
            .inNamespace(Names.APPS)
            .list()
            .getItems()
            .stream()
            .filter(
                s ->
                    s.getMetadata().getOwnerReferences().stream()
                        .anyMatch(
                            o ->
                                o.getKind().equals("VolumeGroupSnapshot")
                                    && o.getName().equals("together")))
            .toList();
    assertThat(members).hasSize(2);
    // The snapshot-controller marks the members' VolumeSnapshots ready in their own syncs, after
    // the group: one was still readyToUse=false when the group was read Ready.
    members.forEach(s -> awaitReady(Resources.VOLUME_SNAPSHOT, s.getMetadata().getName()));
    String g2Member =
        members.stream()
            .filter(
                s ->
                    field(s, "spec", "source", "persistentVolumeClaimName")
                        .equals(Optional.of("g2")))
            .findFirst()
            .orElseThrow()
            .getMetadata()
            .getName();
    kube()
        .awaitEvent(
            "VolumeGroupSnapshot",
            Names.APPS,
            "together",
            "GroupSnapshotReady",
            Duration.ofSeconds(30));
    kube().describe("volumegroupsnapshot", Names.APPS, "together");
    pods().delete("group-writer");
    claims()
        .create(
            "g2-restored",
            Claims.Spec.filesystem(Names.EXT4_CLASS, "128Mi").from("VolumeSnapshot", g2Member));
    pods().mounting("group-reader", Map.of("g2-restored", "/g2"));
    assertThat(pods().sha256("group-reader", "/g2/file")).isEqualTo(g2Sum);
    pods().delete("group-reader");
    figure(
        "readyToUse in "
            + readyIn
            + ", 2 member VolumeSnapshots; g2's member restored, sha256 equal");
  }

  @Test
  @Order(4)
  @DisplayName("clone")
  void cloneOfAClaim() {
    world().require("data.handle");
    long start = System.nanoTime();
    claims()
        .create(
            "clone",
            Claims.Spec.filesystem(Names.EXT4_CLASS, "1Gi")
                .from("PersistentVolumeClaim", ReclaimTest.DATA));
    pods().mounting("cloner", Map.of("clone", "/data"));
    assertThat(pods().sha256("cloner", ReclaimTest.KEEP))
        .isEqualTo(world().require("data.keep.sha256"));
    Path image = Names.image(claims().volumeHandle("clone"));
    assertThat(Files.exists(image)).isTrue();
    pods().delete("cloner");
    kube().describe("persistentvolumeclaim", Names.APPS, "clone");
    figure(
        "clone mounted in "
            + seconds(start)
            + ", sha256 equal; its image allocates "
            + Host.allocatedBytes(image)
            + " B");
  }

  static GenericKubernetesResource awaitReady(
      io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind, String name) {
    return Waits.until(
        kind.getKind() + " " + name + " to be readyToUse",
        READY_LIMIT,
        () ->
            Optional.ofNullable(get(kind, Names.APPS, name))
                .filter(s -> field(s, "status", "readyToUse").equals(Optional.of(true))),
        () -> field(get(kind, Names.APPS, name), "status").orElse("no status"));
  }
}
