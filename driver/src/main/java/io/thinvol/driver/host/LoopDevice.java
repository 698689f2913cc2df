package io.thinvol.driver.host;

import java.nio.file.Path;

/** An attached loop device: its node ({@code /dev/loop3}) and kernel device number. */
public record LoopDevice(Path path, String majorMinor) {

  /** The kernel name, e.g. {@code loop3}. */
  public String name() {
    return path.getFileName().toString();
  }
}
