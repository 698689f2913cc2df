package io.thinvol.driver.peer;

/** The driver pod on {@code node}, reached at {@code host:port} (its addons port). */
public record PeerEndpoint(String node, String pod, String host, int port) {

  /** How a message names it: node, pod and address, so a person knows where to look. */
  public String describe() {
    return "node " + node + " (pod " + pod + " at " + host + ":" + port + ")";
  }
}
