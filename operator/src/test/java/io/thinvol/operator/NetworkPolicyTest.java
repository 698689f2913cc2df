package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.thinvol.operator.model.NetworkPolicyModel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The operator gives each backend's node pods their NetworkPolicy, owned by the backend. */
class NetworkPolicyTest extends MockClusterTest {

  @Test
  @DisplayName("A backend gets the node pods' NetworkPolicy, owned by it")
  void created() {
    apply("metadata:\n  name: guarded\n");
    NetworkPolicy policy = namespaced(NetworkPolicy.class, "thinvol-guarded-node");
    assertThat(policy.getSpec())
        .isEqualTo(
            NetworkPolicyModel.desired(
                    client
                        .resources(io.thinvol.api.v1alpha1.StorageBackend.class)
                        .withName("guarded")
                        .get(),
                    SETTINGS)
                .getSpec());
    assertThat(policy.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getName()).isEqualTo("guarded"));
  }
}
