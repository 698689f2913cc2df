package io.thinvol.driver.preflight;

import csi.v1.CapacityRange;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodeGetVolumeStatsRequest;
import csi.v1.NodeGetVolumeStatsResponse;
import csi.v1.VolumeCapability;
import csi.v1.VolumeContentSource;
import io.thinvol.driver.client.CsiClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The volumes the preflight makes, each in a slot ("fs", "block") with its own staging and target
 * path under the work directory, as a kubelet would lay them out; and what undoes each step taken
 * on them, so that cleanup removes whatever is left, newest first, even after a failure.
 */
final class PreflightVolumes {

  private final CsiClient csi;
  private final Path work;
  // What to undo, by name ("publish:fs"); cleanup runs what remains, newest first.
  private final Map<String, Runnable> undo = new LinkedHashMap<>();

  PreflightVolumes(CsiClient csi, Path work) {
    this.csi = csi;
    this.work = work;
  }

  /** Something else to undo at cleanup unless it is undone before. */
  void undoAtCleanUp(String name, Runnable action) {
    undo.put(name, action);
  }

  String create(String slot, long bytes, VolumeCapability capability, VolumeContentSource source) {
    String id = csi.createVolume("preflight-" + slot, bytes, capability, source);
    undo.put("create:" + slot, () -> csi.deleteVolume(id));
    return id;
  }

  String stage(String id, String slot, VolumeCapability capability) {
    csi.stage(id, staging(slot), capability);
    undo.put("stage:" + slot, () -> csi.unstage(id, staging(slot)));
    return staging(slot).toString();
  }

  String publish(String id, String slot, VolumeCapability capability) {
    csi.publish(id, staging(slot), target(slot), capability, false);
    undo.put("publish:" + slot, () -> csi.unpublish(id, target(slot)));
    return target(slot).toString();
  }

  void expandNode(String id, String slot, long bytes) {
    csi.node()
        .nodeExpandVolume(
            NodeExpandVolumeRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(target(slot).toString())
                .setStagingTargetPath(staging(slot).toString())
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                .build());
  }

  /** NodeGetVolumeStats of the volume published in {@code slot}. */
  NodeGetVolumeStatsResponse stats(String id, String slot) {
    return csi.node()
        .nodeGetVolumeStats(
            NodeGetVolumeStatsRequest.newBuilder()
                .setVolumeId(id)
                .setVolumePath(target(slot).toString())
                .build());
  }

  /** Unpublishes, unstages and (unless {@code keep}) deletes the volume in {@code slot}. */
  void release(String slot, boolean keep) {
    undo.remove("publish:" + slot).run();
    undo.remove("stage:" + slot).run();
    if (!keep) {
      undo.remove("create:" + slot).run();
    }
  }

  void cleanUp(StepRunner steps) {
    List<String> names = new ArrayList<>(undo.keySet());
    for (int n = names.size() - 1; n >= 0; n--) {
      String name = names.get(n);
      steps.always(
          "clean up " + name,
          () -> {
            undo.remove(name).run();
            return "";
          });
    }
  }

  Path staging(String slot) {
    return work.resolve("staging").resolve(slot);
  }

  Path target(String slot) {
    Path base = work.resolve("pods").resolve(slot);
    return slot.equals("block") ? base.resolve("device") : base.resolve("mount");
  }
}
