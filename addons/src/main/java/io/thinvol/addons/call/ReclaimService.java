package io.thinvol.addons.call;

/** The two CSI-Addons ReclaimSpace services. */
public enum ReclaimService {
  /** NodeReclaimSpace: trims a volume where it is mounted. */
  NODE("NodeReclaimSpace"),
  /** ControllerReclaimSpace: reclaims a volume no pod uses. */
  CONTROLLER("ControllerReclaimSpace");

  private final String rpc;

  ReclaimService(String rpc) {
    this.rpc = rpc;
  }

  public String rpc() {
    return rpc;
  }
}
