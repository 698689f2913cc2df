package io.thinvol.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The files of this repository that users apply: CRDs, the bundle, the chart, the docs. */
public final class RepoFiles {

  private RepoFiles() {}

  /** The repository's root, found upwards from the working directory (a module's, in Maven). */
  public static Path root() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("bundle/manifests"))
          && Files.isDirectory(dir.resolve("crds"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "not inside the thinvol repository: " + Path.of("").toAbsolutePath());
  }

  public static String read(String relative) {
    try {
      return Files.readString(root().resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The files of a directory ending in {@code suffix}, sorted. */
  public static List<Path> list(String directory, String suffix) {
    try (Stream<Path> files = Files.list(root().resolve(directory))) {
      return files.filter(f -> f.toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The CRDs of {@code crds/}, the files {@code kubectl apply -f crds/} installs. */
  public static List<CustomResourceDefinition> crds() {
    return list("crds", ".yml").stream()
        .map(file -> read(root().relativize(file).toString()))
        .map(yaml -> Serialization.unmarshal(yaml, CustomResourceDefinition.class))
        .toList();
  }

  /** The bundle's ClusterServiceVersion, as OLM reads it. */
  public static String clusterServiceVersion() {
    return read("bundle/manifests/thinvol.clusterserviceversion.yaml");
  }
}
