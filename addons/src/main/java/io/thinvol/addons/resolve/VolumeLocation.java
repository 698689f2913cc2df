package io.thinvol.addons.resolve;

import java.time.Duration;

/**
 * Where a PVC's volume lives and how to reach the driver that holds it.
 *
 * @param volumeId the CSI volume handle
 * @param volumeKey identifies the volume across all jobs: one call in flight per key
 * @param endpoint the driver pod on {@code nodeName}
 * @param timeout how long one call may take
 * @param maxConcurrentPerNode calls in flight to that node, across all jobs
 */
public record VolumeLocation(
    String pvName,
    String volumeId,
    String driverName,
    String backendName,
    String nodeName,
    DriverEndpoint endpoint,
    Duration timeout,
    int maxConcurrentPerNode) {

  public String volumeKey() {
    return driverName + "/" + volumeId;
  }
}
