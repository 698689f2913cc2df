package io.thinvol.api;

import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Optional;

/**
 * Names both the operator (which creates the objects) and the addons (which find the driver pods
 * and trust their certificates) derive from a StorageBackend's name.
 */
public final class BackendNames {

  /** Label on every object of a backend, valued with the backend's name. */
  public static final String BACKEND_LABEL = "thinvol.io/backend";

  /** {@code app.kubernetes.io/name} of the node pods. */
  public static final String NODE_POD_NAME = "thinvol-node";

  /** The node pod's port serving CSI-Addons over TLS. */
  public static final String ADDONS_PORT_NAME = "addons";

  public static final int ADDONS_PORT = 9070;

  /** The topology key the driver puts on each volume: the node holding it. */
  public static final String TOPOLOGY_KEY = "topology.thinvol.io/node";

  private static final String DRIVER_SUFFIX = "." + StorageBackend.GROUP;

  private BackendNames() {}

  public static String driver(String backend) {
    return backend + DRIVER_SUFFIX;
  }

  /** The backend of a thinvol CSI driver name; empty for any other driver. */
  public static Optional<String> backendOfDriver(String driverName) {
    if (driverName == null || !driverName.endsWith(DRIVER_SUFFIX)) {
      return Optional.empty();
    }
    String backend = driverName.substring(0, driverName.length() - DRIVER_SUFFIX.length());
    return backend.isEmpty() ? Optional.empty() : Optional.of(backend);
  }

  public static String nodeDaemonSet(String backend) {
    return "thinvol-" + backend + "-node";
  }

  /**
   * The Secret holding the node pods' CSI-Addons certificate and key: one for every backend, so
   * that the operator's RBAC can name the one Secret it may read and change.
   */
  public static final String ADDONS_TLS_SECRET = "thinvol-addons-tls";

  /**
   * The DNS name in that certificate, which clients verify: one name for every backend, since every
   * backend's node pods serve the same certificate.
   */
  public static String addonsServerName(String namespace) {
    return "thinvol-addons." + namespace + ".svc";
  }
}
