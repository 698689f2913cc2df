package io.thinvol.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.StrictApiServer;
import java.time.Duration;
import java.util.List;

/** VolumeMoves as a user makes and watches them, for the move tests of both worlds. */
final class VolumeMoves {

  private VolumeMoves() {}

  /** Creates move {@code namespace/name} with the spec given in YAML (indented by two). */
  static VolumeMove create(
      KubernetesClient client, String namespace, String name, String yamlSpec) {
    return client
        .resource(
            Serialization.unmarshal(
                "apiVersion: thinvol.io/v1alpha1\nkind: VolumeMove\nmetadata:\n  name: "
                    + name
                    + "\n  namespace: "
                    + namespace
                    + "\nspec:\n"
                    + yamlSpec,
                VolumeMove.class))
        .create();
  }

  static VolumeMove get(KubernetesClient client, String namespace, String name) {
    return client.resources(VolumeMove.class).inNamespace(namespace).withName(name).get();
  }

  /**
   * The move once in {@code phase}; a move that failed meanwhile, or a timeout, fails the test with
   * its status.
   */
  static VolumeMove awaitPhase(
      KubernetesClient client, String namespace, String name, MovePhase phase, Duration timeout) {
    try {
      return MockClusterTest.await(
          name + " " + phase,
          timeout,
          () -> {
            VolumeMove now = get(client, namespace, name);
            MovePhase reached =
                now == null || now.getStatus() == null ? null : now.getStatus().getPhase();
            if (reached == MovePhase.Failed && phase != MovePhase.Failed) {
              throw new AssertionError("the move failed");
            }
            return reached == phase ? now : null;
          });
    } catch (AssertionError e) {
      VolumeMove now = get(client, namespace, name);
      throw new AssertionError(
          e.getMessage()
              + " waiting for "
              + name
              + " "
              + phase
              + "; the move's status: "
              + (now == null ? "gone" : Serialization.asYaml(now.getStatus())),
          e);
    }
  }

  /**
   * The operator's refused requests but the dry-run creates of the moving claim that the cut-over's
   * admission policy denies: that denial is how the operator knows the policy is in force.
   */
  static List<StrictApiServer.Decision> withoutCutOverDenials(
      List<StrictApiServer.Decision> refused) {
    return refused.stream()
        .filter(
            d ->
                !(d.code() == 403
                    && d.request().verb().equals("create")
                    && d.request().resource().equals("persistentvolumeclaims")
                    && d.message() != null
                    && d.message().contains("ValidatingAdmissionPolicy 'thinvol-move-")))
        .toList();
  }
}
