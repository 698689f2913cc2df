package io.thinvol.driver.core;

import io.thinvol.driver.host.FileId;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.store.DataLayout;
import io.thinvol.driver.store.VolumeRecord;
import java.io.File;
import java.util.Set;

/** The controller's view of a volume's health: its image file and whether it is attached. */
public final class VolumeHealth {

  private final DataLayout layout;
  private final HostTools host;

  public VolumeHealth(DataLayout layout, HostTools host) {
    this.layout = layout;
    this.host = host;
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
      return null;
    }
  }
}
