package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.VolumeCapability;
import io.thinvol.driver.ContainerNode;
import io.thinvol.driver.DriverProcess;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.CsiClient;
import io.thinvol.driver.host.MountTable;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The driver's container may see {@code /sys} read-only although it is privileged (containerd 1.6,
 * a pod network namespace): on the real node every xfs volume failed to stage ("cannot bound the
 * xfs error retries ... Read-only file system"). The settings are written through a sysfs of the
 * driver's own making instead.
 */
class ReadOnlySysfsTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability XFS = Capabilities.mount("xfs");

  @Test
  @DisplayName("An xfs volume stages under a read-only /sys, with its error retries bounded")
  void xfsStagesUnderAReadOnlySysfs() throws Exception {
    try (ContainerNode node = new ContainerNode();
        DriverProcess driver = node.startDriverWithReadOnlySysfs("node-a")) {
      CsiClient csi = driver.csi();
      String id = csi.createVolume("xfs", 300 * MIB, XFS, null);
      Path staging = node.staging("xfs");
      csi.stage(id, staging, XFS);
      try {
        String device =
            Path.of(MountTable.read().at(staging).orElseThrow().source()).getFileName().toString();
        Path errors = Path.of("/sys/fs/xfs", device, "error");
        for (String error : new String[] {"ENOSPC", "EIO"}) {
          Path settings = errors.resolve("metadata").resolve(error);
          assertThat(Files.readString(settings.resolve("max_retries")).strip()).isEqualTo("600");
          assertThat(Files.readString(settings.resolve("retry_timeout_seconds")).strip())
              .isEqualTo("30");
        }
        assertThat(Files.readString(errors.resolve("fail_at_unmount")).strip()).isEqualTo("1");
      } finally {
        csi.unstage(id, staging);
        csi.deleteVolume(id);
      }
    }
  }
}
