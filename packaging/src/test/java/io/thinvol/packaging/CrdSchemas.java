package io.thinvol.packaging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** The schemas of the committed CRDs, by apiVersion and kind, and YAML reading for the tests. */
final class CrdSchemas {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<String, JsonNode> byKind = new HashMap<>();

  CrdSchemas(Path crds) {
    try (Stream<Path> files = Files.list(crds)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
        JsonNode crd = YAML.readTree(file.toFile());
        String group = crd.at("/spec/group").asText();
        String kind = crd.at("/spec/names/kind").asText();
        for (JsonNode version : crd.at("/spec/versions")) {
          byKind.put(
              group + "/" + version.path("name").asText() + " " + kind,
              version.at("/schema/openAPIV3Schema"));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The schema of an object's apiVersion and kind, if it is one of ours. */
  Optional<JsonNode> of(JsonNode object) {
    return Optional.ofNullable(
        byKind.get(object.path("apiVersion").asText() + " " + object.path("kind").asText()));
  }

  /** Every YAML document in a text ({@code ---} separated), skipping empty ones. */
  static List<JsonNode> documents(String yaml) {
    try {
      return YAML
          .readValues(YAML.getFactory().createParser(yaml), JsonNode.class)
          .readAll()
          .stream()
          .filter(d -> d != null && !d.isNull() && !d.isMissingNode())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
