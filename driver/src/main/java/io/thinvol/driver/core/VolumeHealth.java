package io.thinvol.driver.core;

import io.thinvol.driver.host.FileId;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A volume's health as the controller sees it: its image file, whether it is attached, and whether
 * the data dir has room for the image to grow.
 */
public final class VolumeHealth {

  private final DataLayout layout;
  private final HostTools host;
  private final DataDirHealth dataDir;

  public VolumeHealth(DataLayout layout, HostTools host, DataDirHealth dataDir) {
    this.layout = layout;
    this.host = host;
    this.dataDir = dataDir;
  }

  /** Why the volume's image cannot take writes because of the data dir, or null. */
  public String dataDirProblem(String volumeId) {
    File image = layout.volumeImage(volumeId).toFile();
    return dataDir.imageProblem(image.toPath(), image.length());
  }

  /**
   * How many of {@code volumes} have an abnormal condition ({@link View#problem}), for the metric:
   * the data dir is read once, and the images' allocated bytes only while it is full.
   */
  public int abnormalCount(List<VolumeRecord> volumes) {
    DataDirHealth.State state = dataDir.state();
    if (state.unusable() != null) {
      return volumes.size();
    }
    int abnormal = 0;
    Map<Path, Long> intact = new HashMap<>();
    for (VolumeRecord volume : volumes) {
      File image = layout.volumeImage(volume.id()).toFile();
      long length = image.isFile() ? image.length() : -1;
      if (length < volume.sizeBytes()) {
        abnormal++;
      } else if (state.full()) {
        intact.put(image.toPath(), length);
      }
    }
    if (!intact.isEmpty()) {
      Map<Path, Long> allocated = host.stats().allocatedBytes(new ArrayList<>(intact.keySet()));
      for (Map.Entry<Path, Long> image : intact.entrySet()) {
        if (allocated.getOrDefault(image.getKey(), 0L) < image.getValue()) {
          abnormal++;
        }
      }
    }
    return abnormal;
  }

  /** A view for one call: the attached loop devices are read once, not once per volume. */
  public View view() {
    return new View(host.loops().attachedFiles());
  }

  /** Health as seen at one moment. */
  public final class View {
    private final Set<FileId> attached;

    private View(Set<FileId> attached) {
      this.attached = attached;
    }

    public boolean isStaged(VolumeRecord volume) {
      return FileId.of(layout.volumeImage(volume.id())).filter(attached::contains).isPresent();
    }

    /** What is wrong with the volume, or null when nothing is. */
    public String problem(VolumeRecord volume) {
      File image = layout.volumeImage(volume.id()).toFile();
      if (!image.isFile()) {
        return "the image file " + image + " is missing; the volume's data is gone";
      }
      if (image.length() < volume.sizeBytes()) {
        return "the image file is "
            + image.length()
            + " bytes, smaller than the volume's "
            + volume.sizeBytes();
      }
      return dataDirProblem(volume.id());
    }
  }
}
