package io.thinvol.driver.peer;

import static io.thinvol.driver.client.ContentSources.snapshotSource;

import csi.v1.CapacityRange;
import csi.v1.CreateVolumeRequest;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/** Staging and publishing the volumes of two-driver tests, as the kubelet of each node would. */
final class NodeVolumes {

  private final PeerDrivers nodes;
  private final VolumeCapability capability;

  NodeVolumes(PeerDrivers nodes, VolumeCapability capability) {
    this.nodes = nodes;
    this.capability = capability;
  }

  /** Stages and publishes {@code id} on {@code node}; returns where a pod would see it. */
  Path stageAndPublish(String node, String id) {
    nodes.driver(node).csi().stage(id, staging(node, id), capability);
    nodes.driver(node).csi().publish(id, staging(node, id), target(node, id), capability, false);
    return target(node, id);
  }

  /** A volume on {@code node} restored from {@code snapshot} for claim {@code claim}. */
  String restore(String node, String claim, String snapshot) {
    return create(node, claim, snapshotSource(snapshot), claim);
  }

  /**
   * A 64 MiB volume on {@code node} made from {@code source}; for claim {@code claim} (the
   * parameters a copy from another node reads), or for none.
   */
  String create(String node, String name, VolumeContentSource source, String claim) {
    CreateVolumeRequest.Builder request =
        CreateVolumeRequest.newBuilder()
            .setName(name)
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(64L << 20))
            .addVolumeCapabilities(capability)
            .setVolumeContentSource(source);
    if (claim != null) {
      request.putAllParameters(CopySources.parametersOf(claim));
    }
    return nodes
        .driver(node)
        .csi()
        .controller()
        .createVolume(request.build())
        .getVolume()
        .getVolumeId();
  }

  /** Node {@code node} has begun to write a copy into a volume's private directory. */
  void awaitCopyBegun(String node) throws Exception {
    Path volumes = nodes.dir(node).resolve("data/volumes");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      for (String entry : entries(node, "volumes")) {
        Path image = volumes.resolve(entry).resolve("disk.img");
        if (entry.startsWith(".creating-") && Files.exists(image) && Files.size(image) > 0) {
          return;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError(node + " wrote nothing of the copy");
  }

  void unpublishAndUnstage(String node, String id) {
    nodes.driver(node).csi().unpublish(id, target(node, id));
    nodes.driver(node).csi().unstage(id, staging(node, id));
  }

  /**
   * The names under {@code node}'s data dir's {@code volumes} or {@code snapshots}, half-made ones
   * ({@code .creating-...}) included.
   */
  List<String> entries(String node, String under) throws IOException {
    Path dir = nodes.dir(node).resolve("data").resolve(under);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString()).toList();
    }
  }

  private Path staging(String node, String id) {
    return nodes.dir(node).resolve("staging").resolve(id);
  }

  private Path target(String node, String id) {
    return nodes.dir(node).resolve("pods").resolve(id).resolve("mount");
  }
}
