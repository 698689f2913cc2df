package io.thinvol.driver.host;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Linux capabilities of this process, for features that need more than plain root. */
public final class Privileges {

  private static final int CAP_SYS_RESOURCE = 24;
  private static final Path STATUS = Path.of("/proc/self/status");

  private Privileges() {}

  /** ext4's online resize ioctl needs CAP_SYS_RESOURCE; see {@link #whyNoOnlineExt4Growth()}. */
  public static boolean canResizeExt4Online() {
    return whyNoOnlineExt4Growth().isEmpty();
  }

  /**
   * Why this process cannot grow a mounted ext4 filesystem, read from its effective and bounding
   * capability sets; empty when it can.
   */
  public static Optional<String> whyNoOnlineExt4Growth() {
    String status;
    try {
      status = Files.readString(STATUS);
    } catch (IOException e) {
      return Optional.of("this process cannot read its capabilities from " + STATUS + ": " + e);
    }
    return whyNoOnlineExt4Growth(status);
  }

  /**
   * The same, from the text of a {@code /proc/<pid>/status}. Root in a privileged container gets
   * every capability of its bounding set, so a bounding set without CAP_SYS_RESOURCE means the host
   * (or the VM's kernel, or the container runtime's configuration) withholds it from every process
   * there, and no pod setting gives it back.
   */
  static Optional<String> whyNoOnlineExt4Growth(String procStatus) {
    Optional<BigInteger> effective = capabilities(procStatus, "CapEff");
    Optional<BigInteger> bounding = capabilities(procStatus, "CapBnd");
    if (effective.isEmpty() || bounding.isEmpty()) {
      return Optional.of("this process's capabilities (CapEff, CapBnd) are not in " + STATUS);
    }
    if (effective.get().testBit(CAP_SYS_RESOURCE)) {
      return Optional.empty();
    }
    if (!bounding.get().testBit(CAP_SYS_RESOURCE)) {
      return Optional.of(
          String.format(
              "CAP_SYS_RESOURCE is in neither the effective (CapEff %s) nor the bounding (CapBnd"
                  + " %s) capability set of this process: the host withholds it from every"
                  + " process here, even from root in a privileged container, and no pod setting"
                  + " can grant it",
              hex(effective.get()), hex(bounding.get())));
    }
    return Optional.of(
        String.format(
            "CAP_SYS_RESOURCE is in the bounding (CapBnd %s) but not the effective (CapEff %s)"
                + " capability set of this process: the container was not given it; run the"
                + " driver container privileged, as the node DaemonSet does, or add SYS_RESOURCE"
                + " to its securityContext.capabilities",
            hex(bounding.get()), hex(effective.get())));
  }

  private static Optional<BigInteger> capabilities(String procStatus, String field) {
    String prefix = field + ":";
    return procStatus
        .lines()
        .filter(line -> line.startsWith(prefix))
        .findFirst()
        .flatMap(
            line -> {
              try {
                return Optional.of(new BigInteger(line.substring(prefix.length()).strip(), 16));
              } catch (NumberFormatException e) {
                return Optional.empty();
              }
            });
  }

  private static String hex(BigInteger set) {
    return String.format("%016x", set);
  }
}
