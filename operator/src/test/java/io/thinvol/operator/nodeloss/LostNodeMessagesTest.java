package io.thinvol.operator.nodeloss;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LostNodeMessagesTest {

  private static final NodeHealth DELETED = NodeHealth.of(java.util.Optional.empty());

  @Test
  void theBackendsConditionNamesTenClaimsAndCountsTheRest() {
    Map<String, List<LostClaim>> byNode = new TreeMap<>();
    byNode.put("node-a", claims("node-a", 8));
    byNode.put("node-b", claims("node-b", 5));
    assertThat(LostNodeMessages.lost(byNode))
        .isEqualTo(
            "13 claims are bound to volumes on lost nodes; their pods cannot start and their data"
                + " is only on those nodes' disks: node node-a (its Node was deleted): 8 claims,"
                + " apps/c0, apps/c1, apps/c2, apps/c3, apps/c4, apps/c5, apps/c6, apps/c7; node"
                + " node-b (its Node was deleted): 5 claims, apps/c0, apps/c1 and 3 more. Each"
                + " claim's Warning NodeLost says what to do; see"
                + " docs/moves.md#a-node-lost-for-good");
  }

  @Test
  void nodesPastTheTenthClaimAreCountedOnly() {
    Map<String, List<LostClaim>> byNode = new TreeMap<>();
    byNode.put("node-a", claims("node-a", 10));
    byNode.put("node-b", claims("node-b", 1));
    assertThat(LostNodeMessages.lost(byNode))
        .contains("; node node-b (its Node was deleted): 1 claim.");
  }

  private static List<LostClaim> claims(String node, int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> new LostClaim("apps", "c" + i, "uid-" + i, "pv-" + i, node, DELETED))
        .toList();
  }
}
