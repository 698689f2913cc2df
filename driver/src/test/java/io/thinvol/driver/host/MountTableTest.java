package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountTableTest {

  private static final List<String> MOUNTINFO =
      List.of(
          "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=123k",
          "101 27 7:3 / /var/lib/kubelet/staging/pv\\0401 rw,relatime shared:5 - ext4 /dev/loop3 rw",
          "102 27 7:3 / /var/lib/kubelet/pods/a/mount ro,relatime shared:5 - ext4 /dev/loop3 rw",
          "103 27 0:6 /loop4 /var/lib/kubelet/pods/b/dev rw - devtmpfs devtmpfs rw",
          "104 27 7:5 / /broken rw - ext4 /dev/loop5 ro,errors=remount-ro",
          "105 104 0:30 / /broken rw - tmpfs tmpfs rw");

  private final MountTable table = MountTable.parse(MOUNTINFO);

  @Test
  void decodesEscapedMountPointsAndOptionalFields() {
    MountEntry staged = table.at(Path.of("/var/lib/kubelet/staging/pv 1")).orElseThrow();
    assertThat(staged.majorMinor()).isEqualTo("7:3");
    assertThat(staged.fsType()).isEqualTo("ext4");
    assertThat(staged.source()).isEqualTo("/dev/loop3");
    assertThat(staged.readOnly()).isFalse();
    assertThat(table.at(Path.of("/var/lib/kubelet/pods/a/mount")).orElseThrow().readOnly())
        .isTrue();
  }

  @Test
  void findsFilesystemAndDeviceNodeMounts() {
    LoopDevice loop3 =
        new LoopDevice(Path.of("/dev/loop3"), "7:3", new FileId(8, 1, 12), "/img", false);
    LoopDevice loop4 =
        new LoopDevice(Path.of("/dev/loop4"), "7:4", new FileId(8, 1, 13), "/img2", false);
    assertThat(table.ofDevice(loop3)).hasSize(2);
    assertThat(table.ofDeviceNode(loop4))
        .extracting(MountEntry::mountPoint)
        .containsExactly(Path.of("/var/lib/kubelet/pods/b/dev"));
    assertThat(table.ofDeviceNode(loop3)).isEmpty();
  }

  @Test
  void topmostMountWinsAndReadOnlySuperblockIsVisible() {
    assertThat(table.at(Path.of("/broken")).orElseThrow().fsType()).isEqualTo("tmpfs");
    assertThat(table.under(Path.of("/broken")).get(0).filesystemReadOnly()).isTrue();
    assertThat(table.at(Path.of("/nowhere"))).isEmpty();
  }

  /**
   * A kubelet dir bound onto itself under a shared parent, as /proc/self/mountinfo shows it: the
   * staging mount and the publish bind are each listed twice, once on the kubelet bind (reachable)
   * and once, by propagation, on the parent under it (covered by the bind).
   */
  private static final List<String> SELF_BOUND_KUBELET =
      List.of(
          "1 0 254:0 / / rw - ext4 /dev/vda rw",
          "63 1 254:0 /k /k rw shared:1 - ext4 /dev/vda rw",
          "64 63 254:0 /k/kubelet /k/kubelet rw shared:1 - ext4 /dev/vda rw",
          "65 64 7:0 / /k/kubelet/staging rw shared:2 - ext4 /dev/loop0 rw",
          "66 63 7:0 / /k/kubelet/staging rw shared:2 - ext4 /dev/loop0 rw",
          "67 64 7:0 / /k/kubelet/target ro shared:2 - ext4 /dev/loop0 rw",
          "68 63 7:0 / /k/kubelet/target rw shared:2 - ext4 /dev/loop0 rw",
          "69 63 7:1 / /k/kubelet/covered rw - ext4 /dev/loop1 rw");

  @Test
  void aMountPointListedTwiceIsTheMountItsPathReaches() {
    MountTable table = MountTable.parse(SELF_BOUND_KUBELET);
    assertThat(table.at(Path.of("/k/kubelet/staging")).orElseThrow().id()).isEqualTo(65);
    assertThat(table.at(Path.of("/k/kubelet/target")).orElseThrow().readOnly()).isTrue();
    assertThat(table.at(Path.of("/k/kubelet/covered")))
        .as("only a copy under the kubelet bind is there: no path reaches it")
        .isEmpty();
    assertThat(table.at(Path.of("/k/kubelet")).orElseThrow().id()).isEqualTo(64);
    assertThat(table.mountPointsUnder(Path.of("/k/kubelet")))
        .containsExactly(
            Path.of("/k/kubelet/staging"),
            Path.of("/k/kubelet/target"),
            Path.of("/k/kubelet/covered"),
            Path.of("/k/kubelet"));
  }

  @Test
  void unescapeLeavesOtherBackslashesAlone() {
    assertThat(MountTable.unescape("a\\134b\\011c\\012d")).isEqualTo("a\\b\tc\nd");
    assertThat(MountTable.unescape("odd\\9x\\")).isEqualTo("odd\\9x\\");
  }
}
