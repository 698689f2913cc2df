package io.thinvol.driver.host;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;

/** Linux capabilities of this process, for features that need more than plain root. */
public final class Privileges {

  private static final int CAP_SYS_RESOURCE = 24;

  private Privileges() {}

  /** ext4's online resize ioctl needs CAP_SYS_RESOURCE; a non-privileged container lacks it. */
  public static boolean canResizeExt4Online() {
    return hasCapability(CAP_SYS_RESOURCE);
  }

  static boolean hasCapability(int bit) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("CapEff:")) {
          return new BigInteger(line.substring("CapEff:".length()).strip(), 16).testBit(bit);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return false;
    }
    return false;
  }
}
