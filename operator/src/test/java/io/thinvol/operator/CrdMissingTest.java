package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.thinvol.api.v1alpha1.VolumeMove;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cluster lacks the VolumeMove CRD. On a real cluster the operator crash-looped on {@code GET
 * .../volumemoves ... Not Found} and reconciled nothing. Now StorageBackends and reclamation work,
 * and the moves and the node evacuation start once the CRD is applied.
 */
class CrdMissingTest extends UpgradeWithoutCrdsTest {

  private static final String CRD = "volumemoves.thinvol.io";

  @Override
  List<String> missingCrds() {
    return List.of(CRD);
  }

  @Test
  void backendsAndReclaimWorkTheMissingKindIsReportedAndMovesStartOnceItIsApplied() {
    assertThat(readyBackendDegradedForTheMissingCrds())
        .contains("CRD " + CRD + " is not installed")
        .contains("VolumeMoves and node evacuation, and VolumeReplications wait")
        .contains(install(CRD));
    HttpResponse<String> readyz = get("/readyz");
    assertThat(readyz.statusCode()).isEqualTo(200);
    assertThat(readyz.body()).startsWith("ok; CRD " + CRD).contains(install(CRD)).endsWith("\n");

    reclaimSucceeds();

    // An evacuation asked for while the kind is missing waits for it too.
    client
        .nodes()
        .withName(NODE)
        .edit(
            n ->
                new NodeBuilder(n)
                    .editMetadata()
                    .addToAnnotations(VolumeMove.EVACUATE, "true")
                    .endMetadata()
                    .build());
    assertThat(operatorDecisions())
        .as("the operator never asked for VolumeMoves while they were not served")
        .noneMatch(d -> "volumemoves".equals(d.request().resource()));

    applyTheChartsCrds();

    await(
        "the evacuation's move of the claim",
        () -> moves().stream().anyMatch(m -> m.getMetadata().getName().equals("evacuate-pv-a")));
    aMoveOfNoClaimFails("nothing");
    await("Degraded no more", () -> degradedFor("AllNodesReady"));
    assertThat(get("/readyz").body()).isEqualTo("ok\n");
  }

  private List<VolumeMove> moves() {
    return client.resources(VolumeMove.class).inNamespace(APPS).list().getItems();
  }
}
