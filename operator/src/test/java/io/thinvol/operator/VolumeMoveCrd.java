package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The VolumeMove CRD, served. The operator watches VolumeMoves, so its tests need it; until {@code
 * crds/} holds it (the fixture installs every CRD there), it is installed from the one the api
 * module generates, which is the same model. A no-op once the cluster serves it.
 */
final class VolumeMoveCrd {

  static final String NAME = "volumemoves.thinvol.io";

  private VolumeMoveCrd() {}

  static void installUnlessServed(TestCluster cluster) {
    if (cluster.admin().apiextensions().v1().customResourceDefinitions().withName(NAME).get()
        != null) {
      return;
    }
    try (InputStream in =
        VolumeMoveCrd.class.getResourceAsStream("/META-INF/fabric8/" + NAME + "-v1.yml")) {
      if (in == null) {
        throw new IllegalStateException("the api module generated no CRD " + NAME);
      }
      cluster.install(List.of(Serialization.unmarshal(in, CustomResourceDefinition.class)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
