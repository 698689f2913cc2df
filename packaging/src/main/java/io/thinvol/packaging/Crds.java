package io.thinvol.packaging;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The CRDs committed in {@code crds/} (generated from the model and checked against it). */
public record Crds(List<Crd> all) {

  /** One CRD file. */
  public record Crd(String file, String text, CustomResourceDefinition definition) {

    public String kind() {
      return definition.getSpec().getNames().getKind();
    }

    public String version() {
      return definition.getSpec().getVersions().get(0).getName();
    }

    public JSONSchemaProps schema() {
      return definition.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();
    }

    /** The schema at a dotted path such as {@code spec.reclaimSpace.schedule}. */
    public Optional<JSONSchemaProps> at(String path) {
      JSONSchemaProps node = schema();
      for (String part : path.split("\\.")) {
        if (node.getProperties() == null || !node.getProperties().containsKey(part)) {
          return Optional.empty();
        }
        node = node.getProperties().get(part);
      }
      return Optional.of(node);
    }
  }

  public static Crds in(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      return new Crds(
          files
              .filter(f -> f.getFileName().toString().endsWith(".yml"))
              .sorted()
              .map(Crds::read)
              .toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Crd read(Path file) {
    try {
      String text = Files.readString(file);
      return new Crd(
          file.getFileName().toString(),
          text,
          Serialization.unmarshal(text, CustomResourceDefinition.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Crd ofKind(String kind) {
    return all.stream()
        .filter(c -> c.kind().equals(kind))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no CRD of kind " + kind));
  }
}
