package io.thinvol.addons.resolve;

/**
 * A driver pod's CSI-Addons TLS port.
 *
 * @param backendName whose certificate the pod presents
 */
public record DriverEndpoint(String backendName, String podName, String host, int port) {

  @Override
  public String toString() {
    return podName + " (" + host + ":" + port + ")";
  }
}
