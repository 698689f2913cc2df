package io.thinvol.e2e.support;

import java.nio.file.Path;
import java.util.List;

/** The names the suite gives what it creates, and the ones the product derives from them. */
public final class Names {

  /** The namespace the CSV suggests and OLM would install into. */
  public static final String OPERATOR = "thinvol-system";

  /** The users' namespace: claims, pods, snapshots, reclaim jobs. */
  public static final String APPS = "thinvol-e2e";

  public static final String BACKEND = "e2e";
  public static final String DRIVER = BACKEND + ".thinvol.io";
  public static final String EXT4_CLASS = "thinvol-e2e";
  public static final String XFS_CLASS = "thinvol-e2e-xfs";
  public static final Path DATA_DIR = Path.of("/var/lib/thinvol/" + BACKEND);
  public static final String NODE_DAEMON_SET = "thinvol-" + BACKEND + "-node";
  public static final String NODE_POD_SELECTOR_KEY = "app.kubernetes.io/name";
  public static final String NODE_POD_SELECTOR_VALUE = "thinvol-node";
  public static final Path PLUGIN_DIR = Path.of("/var/lib/kubelet/plugins/" + DRIVER);

  /**
   * MonitoringTest's second backend, whose data dir is a small disk of its own to fill. Its names
   * contain neither {@link #DATA_DIR} nor {@link #DRIVER}, which the other steps look for on the
   * host.
   */
  public static final String SMALL_BACKEND = "e2e-small";

  public static final String SMALL_DRIVER = SMALL_BACKEND + ".thinvol.io";
  public static final String SMALL_CLASS = "thinvol-e2e-small";
  public static final Path SMALL_DATA_DIR = Path.of("/var/lib/thinvol/small-disk-e2e");

  /**
   * CrossNodeTest's backend, whose data dir on the host's node is a small disk, so that a claim too
   * big for it must land on the other node.
   */
  public static final String CAPACITY_BACKEND = "e2e-capacity";

  public static final String CAPACITY_DRIVER = CAPACITY_BACKEND + ".thinvol.io";
  public static final String CAPACITY_CLASS = "thinvol-e2e-capacity";
  public static final Path CAPACITY_DATA_DIR = Path.of("/var/lib/thinvol/capacity-disk-e2e");

  public static final List<String> BACKENDS = List.of(BACKEND, SMALL_BACKEND, CAPACITY_BACKEND);
  public static final List<String> DRIVERS = List.of(DRIVER, SMALL_DRIVER, CAPACITY_DRIVER);
  public static final List<Path> SMALL_DISKS = List.of(SMALL_DATA_DIR, CAPACITY_DATA_DIR);

  /** csi-sanity's staging and target paths: where the driver's container shares the host's. */
  public static final Path SANITY_WORK = Path.of("/var/lib/kubelet/plugins/thinvol-e2e-sanity");

  /** A label on everything the suite installs as OLM would, so that it finds it again. */
  public static final String INSTALLED_BY = "e2e.thinvol.io/installed-by";

  private Names() {}

  /** A volume's image on the node. */
  public static Path image(String volumeHandle) {
    return DATA_DIR.resolve("volumes").resolve(volumeHandle).resolve("disk.img");
  }
}
