package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.api.v1alpha1.VolumeReplication;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An upgrade from a release before replication, without the chart's {@code crds/} applied: the
 * cluster lacks both replication CRDs. Moves, StorageBackends and reclamation work meanwhile; the
 * VolumeReplications start once both CRDs are applied.
 */
class ReplicationCrdsMissingTest extends UpgradeWithoutCrdsTest {

  private static final String REPLICATIONS = "volumereplications.thinvol.io";
  private static final String CLASSES = "volumereplicationclasses.thinvol.io";

  @Override
  List<String> missingCrds() {
    return List.of(REPLICATIONS, CLASSES);
  }

  @Test
  void movesAndReclaimWorkAndReplicationsStartOnceBothCrdsAreApplied() {
    String degraded = readyBackendDegradedForTheMissingCrds();
    for (String crd : missingCrds()) {
      assertThat(degraded)
          .contains("CRD " + crd + " is not installed, so VolumeReplications wait")
          .contains(install(crd));
    }
    assertThat(degraded).doesNotContain("VolumeMoves and node evacuation");
    assertThat(get("/readyz").body()).startsWith("ok; CRD ").contains(install(REPLICATIONS));

    reclaimSucceeds();
    cluster.namespace(APPS);
    aMoveOfNoClaimFails("nothing");
    assertThat(operatorDecisions())
        .as("the operator never asked for VolumeReplications while they were not served")
        .noneMatch(d -> "volumereplications".equals(d.request().resource()));

    applyTheChartsCrds();

    VolumeReplications.create(client, APPS, "data", "missing", "data", false);
    await(
        "the replication reconciled",
        () -> {
          VolumeReplication now =
              client.resources(VolumeReplication.class).inNamespace(APPS).withName("data").get();
          return now.getStatus() != null
              && now.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("Validated") && c.getStatus().equals("False"));
        });
    await("Degraded no more", () -> degradedFor("AllNodesReady"));
    assertThat(get("/readyz").body()).isEqualTo("ok\n");
  }
}
