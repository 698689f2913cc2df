package io.thinvol.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.api.v1alpha1.ReclaimSpaceCronJob;
import io.thinvol.api.v1alpha1.ReclaimSpaceJob;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.api.v1alpha1.VolumeReplication;
import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed CRDs are exactly what the model generates, with the printer columns in the model's
 * order ({@link PrinterColumnOrder}). With {@code -Dthinvol.regenerate=true} the test writes them.
 */
class CrdDriftTest {

  static final String REGENERATE =
      "./mvnw -q -pl api -am test -Dtest=CrdDriftTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dthinvol.regenerate=true";

  private static final Map<String, Class<?>> KINDS =
      Map.of(
          "storagebackends.thinvol.io-v1.yml", StorageBackend.class,
          "reclaimspacejobs.thinvol.io-v1.yml", ReclaimSpaceJob.class,
          "reclaimspacecronjobs.thinvol.io-v1.yml", ReclaimSpaceCronJob.class,
          "volumemoves.thinvol.io-v1.yml", VolumeMove.class,
          "volumereplications.thinvol.io-v1.yml", VolumeReplication.class,
          "volumereplicationclasses.thinvol.io-v1.yml", VolumeReplicationClass.class);

  static Stream<String> files() {
    return KINDS.keySet().stream().sorted();
  }

  @ParameterizedTest
  @MethodSource("files")
  void committedCrdMatchesTheModel(String file) throws IOException {
    String generated;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/fabric8/" + file)) {
      assertThat(in).as("the build generated %s", file).isNotNull();
      generated =
          PrinterColumnOrder.apply(
              new String(in.readAllBytes(), StandardCharsets.UTF_8), KINDS.get(file));
    }
    Path committed = Path.of("..", "crds", file);
    if (Boolean.getBoolean("thinvol.regenerate")) {
      Files.writeString(committed, generated);
    }
    assertThat(committed).as("crds/%s is committed", file).exists();
    assertThat(Files.readString(committed))
        .as("crds/%s differs from the model; run: %s", file, REGENERATE)
        .isEqualTo(generated);
  }
}
