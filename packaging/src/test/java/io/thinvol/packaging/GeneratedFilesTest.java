package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bundle, the chart's generated parts and the CRD reference are exactly what the model
 * generates. With {@code -Dthinvol.regenerate=true} the test writes them instead.
 */
class GeneratedFilesTest {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void committedFilesMatchTheModel() throws IOException {
    Map<String, String> generated = PackagingFiles.generate(ROOT);
    if (Boolean.getBoolean("thinvol.regenerate")) {
      PackagingFiles.main(new String[] {ROOT.toString()});
    }
    for (Map.Entry<String, String> file : generated.entrySet()) {
      Path committed = ROOT.resolve(file.getKey());
      assertThat(committed).as("%s is committed", file.getKey()).exists();
      assertThat(Files.readString(committed))
          .as("%s differs from the model; run: %s", file.getKey(), PackagingFiles.REGENERATE)
          .isEqualTo(file.getValue());
    }
  }
}
