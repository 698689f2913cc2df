package io.thinvol.operator.nodeloss;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * {@code thinvol_operator_volumes_on_lost_nodes{backend,node}}: the claims of each backend bound to
 * volumes on each lost node, as the backend's last reconcile found them. A node with none has no
 * series; a backend's series go with it.
 */
public final class LostVolumesGauge {

  static final String NAME = "thinvol_operator_volumes_on_lost_nodes";

  private final Map<String, Map<String, Integer>> byBackend = new ConcurrentSkipListMap<>();

  void record(String backend, Map<String, List<LostClaim>> byNode) {
    Map<String, Integer> counts = new TreeMap<>();
    byNode.forEach((node, claims) -> counts.put(node, claims.size()));
    if (counts.isEmpty()) {
      byBackend.remove(backend);
    } else {
      byBackend.put(backend, counts);
    }
  }

  void forget(String backend) {
    byBackend.remove(backend);
  }

  /** The Prometheus text exposition. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append("# HELP ")
        .append(NAME)
        .append(" Claims bound to volumes on nodes that are lost: deleted, or tainted")
        .append(" node.kubernetes.io/out-of-service.\n");
    out.append("# TYPE ").append(NAME).append(" gauge\n");
    byBackend.forEach(
        (backend, nodes) ->
            nodes.forEach(
                (node, count) ->
                    out.append(NAME)
                        .append("{backend=\"")
                        .append(backend)
                        .append("\",node=\"")
                        .append(node)
                        .append("\"} ")
                        .append(count)
                        .append('\n')));
    return out.toString();
  }
}
