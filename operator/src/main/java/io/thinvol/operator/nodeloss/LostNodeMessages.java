package io.thinvol.operator.nodeloss;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What the operator says about volumes on lost nodes, on each claim and on the backend. */
final class LostNodeMessages {

  /** Where the recovery is described. */
  static final String RECOVERY = "docs/moves.md#a-node-lost-for-good";

  /** Claims named in the backend's condition at most; the rest are counted. */
  static final int NAMED = 10;

  private LostNodeMessages() {}

  /** The Warning on a claim: what happened and what to do. */
  static String claim(LostClaim claim) {
    return "its PersistentVolume "
        + claim.volume()
        + " is on node "
        + claim.node()
        + ", which is "
        + claim.health().describe()
        + ": no pod can use this claim, and its data is only on that node's disk. Bring node "
        + claim.node()
        + " back under that name with its disk and the claim works again as it was; or delete"
        + " this claim and create it again, empty or restored from a VolumeSnapshot held on"
        + " another node (a snapshot of this claim is on "
        + claim.node()
        + " too); see "
        + RECOVERY;
  }

  /** The backend's condition while claims are on lost nodes: counts, nodes and names (capped). */
  static String lost(Map<String, List<LostClaim>> byNode) {
    int claims = byNode.values().stream().mapToInt(List::size).sum();
    StringBuilder out = new StringBuilder();
    out.append(claims)
        .append(claims == 1 ? " claim is" : " claims are")
        .append(" bound to volumes on lost nodes; their pods cannot start and their data is only")
        .append(" on those nodes' disks: ");
    int named = 0;
    boolean first = true;
    for (Map.Entry<String, List<LostClaim>> node : byNode.entrySet()) {
      List<LostClaim> on = node.getValue();
      int room = Math.max(0, Math.min(on.size(), NAMED - named));
      out.append(first ? "" : "; ")
          .append("node ")
          .append(node.getKey())
          .append(" (")
          .append(on.get(0).health().detail())
          .append("): ")
          .append(on.size())
          .append(on.size() == 1 ? " claim" : " claims");
      if (room > 0) {
        out.append(", ")
            .append(
                on.subList(0, room).stream()
                    .map(LostClaim::qualified)
                    .collect(Collectors.joining(", ")));
        if (room < on.size()) {
          out.append(" and ").append(on.size() - room).append(" more");
        }
      }
      named += room;
      first = false;
    }
    return out.append(". Each claim's Warning NodeLost says what to do; see ")
        .append(RECOVERY)
        .toString();
  }

  static String noneLost() {
    return "no claim of this backend is bound to a volume on a lost node";
  }
}
