package io.thinvol.driver.config;

import java.nio.file.Path;

/**
 * The driver's settings, from flags or their environment variables.
 *
 * @param maxVolumes volumes this node holds at most; also NodeGetInfo's max_volumes_per_node
 * @param overprovisionRatio how many bytes of volumes one byte of disk may back (at least 1)
 * @param nodeExpansion grow images in NodeExpandVolume on the node that holds them, and offer no
 *     ControllerExpandVolume: for DaemonSet-only deployments, where a central resizer would call an
 *     arbitrary node
 * @param dedicatedMount the data dir is meant to be a filesystem mounted there: until one is, the
 *     driver writes nothing to it
 */
public record DriverConfig(
    String csiEndpoint,
    String driverName,
    String nodeId,
    Path dataDir,
    int maxVolumes,
    double overprovisionRatio,
    String version,
    boolean nodeExpansion,
    boolean dedicatedMount) {

  /** Controller-side expansion, and a data dir that need not be a mount of its own. */
  public DriverConfig(
      String csiEndpoint,
      String driverName,
      String nodeId,
      Path dataDir,
      int maxVolumes,
      double overprovisionRatio,
      String version) {
    this(
        csiEndpoint,
        driverName,
        nodeId,
        dataDir,
        maxVolumes,
        overprovisionRatio,
        version,
        false,
        false);
  }

  public static final String TOPOLOGY_KEY = "topology.thinvol.io/node";

  public DriverConfig {
    if (overprovisionRatio < 1.0) {
      throw new IllegalArgumentException("overprovision ratio must be at least 1.0");
    }
    if (maxVolumes < 1) {
      throw new IllegalArgumentException("max volumes must be at least 1");
    }
    if (nodeId == null || nodeId.isBlank()) {
      throw new IllegalArgumentException("node id must be set");
    }
  }
}
