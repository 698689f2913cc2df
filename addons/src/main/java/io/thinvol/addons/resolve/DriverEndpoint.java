package io.thinvol.addons.resolve;

/**
 * A driver pod's CSI-Addons TLS port.
 *
 * @param backendName whose certificate the pod presents
 * @param certificate that certificate (PEM) from the operator's cache, so that a call reads no
 *     Secret; null when the cache does not hold it yet (the caller reads the Secret then)
 */
public record DriverEndpoint(
    String backendName, String podName, String host, int port, String certificate) {

  @Override
  public String toString() {
    return podName + " (" + host + ":" + port + ")";
  }
}
