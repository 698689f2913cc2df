package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a driver needs to forward ControllerModifyVolume to the node holding the volume. */
class PeerForwardingModelTest {

  private static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);
  private static final StorageBackend BACKEND =
      Serialization.unmarshal(
          "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\nmetadata:\n  name: local\n",
          StorageBackend.class);

  private final PodSpec pod =
      NodeDaemonSetModel.desired(BACKEND, SETTINGS, true).getSpec().getTemplate().getSpec();
  private final Container driver =
      pod.getContainers().stream().filter(c -> c.getName().equals("driver")).findFirst().get();

  @Test
  @DisplayName("The driver forwards with its own projected token for the addons audience")
  void projectedToken() {
    Volume volume =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals(PeerForwardingModel.VOLUME))
            .findFirst()
            .orElseThrow();
    ServiceAccountTokenProjection token =
        volume.getProjected().getSources().get(0).getServiceAccountToken();
    assertThat(token.getAudience()).isEqualTo(SETTINGS.addonsTokenAudience());
    assertThat(token.getExpirationSeconds()).isEqualTo(3600L);
    assertThat(driver.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo(PeerForwardingModel.VOLUME);
              assertThat(m.getMountPath() + "/" + token.getPath())
                  .isEqualTo("/var/run/secrets/thinvol/peer/token");
            });
    assertThat(driver.getArgs().get(0)).isEqualTo("driver");
    assertThat(driver.getArgs())
        .contains(
            "--peer-token-file=/var/run/secrets/thinvol/peer/token",
            "--peer-pod-selector=app.kubernetes.io/name=thinvol-node,thinvol.io/backend=local",
            "--peer-serviceaccount=thinvol-system:" + pod.getServiceAccountName());
  }

  @Test
  @DisplayName("The peer selector is the DaemonSet's: it finds the driver pods and nothing else")
  void selectorIsTheDaemonSets() {
    String selector =
        driver.getArgs().stream()
            .filter(a -> a.startsWith("--peer-pod-selector="))
            .findFirst()
            .orElseThrow()
            .substring("--peer-pod-selector=".length());
    Map<String, String> labels =
        Arrays.stream(selector.split(","))
            .map(l -> l.split("=", 2))
            .collect(Collectors.toMap(l -> l[0], l -> l[1]));
    assertThat(labels)
        .isEqualTo(
            NodeDaemonSetModel.desired(BACKEND, SETTINGS, true)
                .getSpec()
                .getSelector()
                .getMatchLabels());
  }

  @Test
  @DisplayName("RBAC: the node role lists PersistentVolumes and pods cluster-wide (the lookups)")
  void lookupsAreGranted() {
    List<PolicyRule> rules = RbacModel.clusterRole(SETTINGS).getRules();
    assertThat(verbs(rules, "persistentvolumes")).contains("list");
    assertThat(verbs(rules, "pods")).contains("list");
    assertThat(verbs(rules, "tokenreviews")).contains("create");
  }

  private static List<String> verbs(List<PolicyRule> rules, String resource) {
    return rules.stream()
        .filter(r -> r.getResources().contains(resource))
        .flatMap(r -> r.getVerbs().stream())
        .toList();
  }
}
