package io.thinvol.operator.model;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.thinvol.api.BackendNames;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Map;

/** The name of every object deployed for a StorageBackend, and the labels they all carry. */
public final class Names {

  public static final String PART_OF = "thinvol";
  public static final String MANAGED_BY = "thinvol-operator";
  public static final String BACKEND_LABEL = BackendNames.BACKEND_LABEL;
  public static final String NODE_POD_NAME = BackendNames.NODE_POD_NAME;

  private Names() {}

  public static String driver(StorageBackend backend) {
    return backend.driverName();
  }

  public static String nodeDaemonSet(StorageBackend backend) {
    return BackendNames.nodeDaemonSet(backend.getMetadata().getName());
  }

  public static String nodeServiceAccount(StorageBackend backend) {
    return nodeDaemonSet(backend);
  }

  /**
   * The node pods' cluster rules, one ClusterRole for every backend (its rules depend on the
   * operator's settings only): a fixed name lets the operator's RBAC name the one ClusterRole it
   * may change.
   */
  public static final String NODE_CLUSTER_ROLE = "thinvol-node";

  /**
   * Binds {@link #NODE_CLUSTER_ROLE} to the node ServiceAccount of every backend (its subjects):
   * one fixed name, so that the operator's RBAC names the one binding it may change.
   */
  public static final String NODE_CLUSTER_ROLE_BINDING = "thinvol-node";

  /**
   * OpenShift only: binds the node ServiceAccount of every backend to the built-in privileged SCC's
   * ClusterRole ({@link PrivilegedSccModel}).
   */
  public static final String NODE_PRIVILEGED_SCC_BINDING = "thinvol-node-privileged-scc";

  public static String nodeRole(StorageBackend backend) {
    return nodeDaemonSet(backend);
  }

  /**
   * The Lease the backend's csi-resizers elect their leader with, in the operator's namespace: not
   * ours to name, external-resizer derives it from the driver name ({@code external-resizer-} and
   * the name with every character other than letters, digits and {@code -} made a {@code -}). It
   * has no owner, so nothing else removes it.
   */
  public static String resizerLease(StorageBackend backend) {
    return "external-resizer-" + backend.driverName().replaceAll("[^a-zA-Z0-9-]", "-");
  }

  /** The StorageClass used when the spec lists none: named after the backend. */
  public static String defaultStorageClass(StorageBackend backend) {
    return backend.getMetadata().getName();
  }

  /** The metadata of a namespaced object of the backend: its name, the operator's namespace. */
  public static ObjectMeta namespaced(String name, StorageBackend backend, Settings settings) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(settings.namespace())
        .withLabels(labels(backend))
        .build();
  }

  /** Labels of the operator's objects that serve every backend. */
  public static Map<String, String> sharedLabels() {
    return Map.of("app.kubernetes.io/part-of", PART_OF, "app.kubernetes.io/managed-by", MANAGED_BY);
  }

  /** Labels on every object of the backend: selection, ownership at a glance. */
  public static Map<String, String> labels(StorageBackend backend) {
    return Map.of(
        "app.kubernetes.io/part-of",
        PART_OF,
        "app.kubernetes.io/managed-by",
        MANAGED_BY,
        BACKEND_LABEL,
        backend.getMetadata().getName());
  }

  /**
   * Labels of the operator's own pods, as its Deployment (bundle and chart) sets them: the only
   * pods the node pods' NetworkPolicy admits to the CSI-Addons port.
   */
  public static Map<String, String> operatorPodLabels() {
    return Map.of("app.kubernetes.io/name", OperatorRbac.SERVICE_ACCOUNT);
  }

  /** Labels of the node pods (also the DaemonSet's selector, which cannot change). */
  public static Map<String, String> nodePodLabels(StorageBackend backend) {
    return Map.of(
        "app.kubernetes.io/name", NODE_POD_NAME, BACKEND_LABEL, backend.getMetadata().getName());
  }
}
