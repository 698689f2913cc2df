package io.thinvol.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Online ext4 growth needs CAP_SYS_RESOURCE; the reason it is missing is read from the process's
 * effective and bounding sets, so the message says whether the pod or the host withholds it.
 */
class OnlineExt4GrowthCapabilityTest {

  private static final String ALL_BUT_SYS_RESOURCE = "000001fffeffffff";
  private static final String ALL = "000001ffffffffff";

  private static String status(String effective, String bounding) {
    return "Name:\tjava\nCapInh:\t0000000000000000\nCapPrm:\t"
        + effective
        + "\nCapEff:\t"
        + effective
        + "\nCapBnd:\t"
        + bounding
        + "\nCapAmb:\t0000000000000000\n";
  }

  @Test
  @DisplayName("With CAP_SYS_RESOURCE effective, nothing is missing")
  void effective() {
    assertThat(Privileges.whyNoOnlineExt4Growth(status(ALL, ALL))).isEmpty();
  }

  @Test
  @DisplayName("Missing from the bounding set: the host withholds it, no pod setting helps")
  void withheldByTheHost() {
    assertThat(Privileges.whyNoOnlineExt4Growth(status(ALL_BUT_SYS_RESOURCE, ALL_BUT_SYS_RESOURCE)))
        .hasValue(
            "CAP_SYS_RESOURCE is in neither the effective (CapEff 000001fffeffffff) nor the"
                + " bounding (CapBnd 000001fffeffffff) capability set of this process: the host"
                + " withholds it from every process here, even from root in a privileged"
                + " container, and no pod setting can grant it");
  }

  @Test
  @DisplayName("In the bounding set only: the container was not given it")
  void notGrantedToTheContainer() {
    assertThat(Privileges.whyNoOnlineExt4Growth(status("00000000a80425fb", ALL)))
        .hasValue(
            "CAP_SYS_RESOURCE is in the bounding (CapBnd 000001ffffffffff) but not the effective"
                + " (CapEff 00000000a80425fb) capability set of this process: the container was"
                + " not given it; run the driver container privileged, as the node DaemonSet"
                + " does, or add SYS_RESOURCE to its securityContext.capabilities");
  }

  @Test
  @DisplayName("A status without capability lines says so rather than guessing")
  void unreadable() {
    assertThat(Privileges.whyNoOnlineExt4Growth("Name:\tjava\n"))
        .hasValue("this process's capabilities (CapEff, CapBnd) are not in /proc/self/status");
  }

  @Test
  @DisplayName("A real process whose bounding set lacks it is told the host withholds it")
  void realProcessWithoutItInItsBoundingSet() {
    CommandResult result =
        new ProcessCommandRunner()
            .run(
                Duration.ofSeconds(30),
                List.of(
                    "setpriv",
                    "--bounding-set",
                    "-sys_resource",
                    "--",
                    "cat",
                    "/proc/self/status"));
    assertThat(Privileges.whyNoOnlineExt4Growth(result.stdout()))
        .hasValueSatisfying(
            why -> assertThat(why).contains("nor the bounding").contains("the host withholds it"));
  }
}
