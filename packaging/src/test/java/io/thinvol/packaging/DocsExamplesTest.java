package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.testing.SchemaValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every YAML example in the docs (and the README) parses; thinvol objects validate against the
 * CRDs, other Kubernetes objects parse as their kinds. A person copying one gets a working object.
 */
class DocsExamplesTest {

  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyYamlExampleIsAValidObject() throws IOException {
    CrdSchemas schemas = new CrdSchemas(GeneratedFilesTest.ROOT.resolve("crds"));
    List<String> checked = new ArrayList<>();
    for (Path doc : docs()) {
      Matcher blocks = YAML_BLOCK.matcher(Files.readString(doc));
      int block = 0;
      while (blocks.find()) {
        block++;
        String where = GeneratedFilesTest.ROOT.relativize(doc) + " block " + block;
        for (JsonNode object : CrdSchemas.documents(blocks.group(1))) {
          if (!object.has("kind")) {
            continue; // a fragment such as values for a chart
          }
          String kind = object.path("kind").asText();
          var schema = schemas.of(object);
          if (schema.isPresent()) {
            assertThat(SchemaValidator.validate(schema.get(), object))
                .as("%s (%s)", where, kind)
                .isEmpty();
          } else {
            HasMetadata parsed = Serialization.unmarshal(object.toString());
            assertThat(parsed.getKind()).as(where).isEqualTo(kind);
          }
          checked.add(where + " " + kind);
        }
      }
    }
    assertThat(checked).as("examples found").hasSizeGreaterThanOrEqualTo(4);
  }

  /** The README and every page of docs/. */
  static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(GeneratedFilesTest.ROOT.resolve("README.md"));
    try (Stream<Path> files = Files.list(GeneratedFilesTest.ROOT.resolve("docs"))) {
      files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }
}
