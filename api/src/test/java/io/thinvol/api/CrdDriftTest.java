package io.thinvol.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The committed CRDs are exactly what the model generates. */
class CrdDriftTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "storagebackends.thinvol.io-v1.yml",
        "reclaimspacejobs.thinvol.io-v1.yml",
        "reclaimspacecronjobs.thinvol.io-v1.yml"
      })
  void committedCrdMatchesTheModel(String file) throws IOException {
    String generated;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/fabric8/" + file)) {
      assertThat(in).as("the build generated %s", file).isNotNull();
      generated = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path committed = Path.of("..", "crds", file);
    assertThat(committed).as("crds/%s is committed", file).exists();
    assertThat(Files.readString(committed))
        .as(
            "crds/%s differs from the model; run: ./mvnw -pl api install && cp"
                + " api/target/classes/META-INF/fabric8/*.yml crds/",
            file)
        .isEqualTo(generated);
  }
}
