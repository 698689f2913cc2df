package io.thinvol.e2e.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the suite runs against, from the environment and the system properties the module's POM
 * passes on: the cluster ({@code KUBECONFIG}), the images to install, the kit's csi-sanity, and the
 * kit's scripts and state folder, through which the steps that need a second node stop and restart
 * it.
 */
public record E2eSettings(
    Path kubeconfig,
    String image,
    String driverImage,
    Optional<String> nextImage,
    String workloadImage,
    Path csiSanity,
    Path repository,
    Path reports,
    boolean keep,
    Optional<Path> kit,
    Path kubeDir,
    String hostNode) {

  public static E2eSettings fromEnvironment() {
    String kubeconfig = System.getenv("KUBECONFIG");
    return new E2eSettings(
        kubeconfig == null || kubeconfig.isBlank() ? null : Path.of(kubeconfig),
        property("thinvol.e2e.image"),
        property("thinvol.e2e.driverImage"),
        Optional.of(property("thinvol.e2e.nextImage")).filter(s -> !s.isEmpty()),
        property("thinvol.e2e.workloadImage"),
        Path.of(property("thinvol.e2e.csiSanity")),
        Path.of(property("thinvol.e2e.repository")),
        Path.of(property("thinvol.e2e.reports")),
        Boolean.parseBoolean(property("thinvol.e2e.keep")),
        Optional.of(property("thinvol.e2e.kit")).filter(s -> !s.isEmpty()).map(Path::of),
        Path.of(property("thinvol.e2e.kubeDir")),
        property("thinvol.e2e.hostNode"));
  }

  /** Why the suite cannot run here, before any cluster is asked; empty when it can. */
  public Optional<String> skipReason() {
    if (kubeconfig == null) {
      return Optional.of("KUBECONFIG is not set: no cluster to run the end-to-end suite on");
    }
    if (!Files.isReadable(kubeconfig)) {
      return Optional.of("KUBECONFIG names " + kubeconfig + ", which cannot be read");
    }
    if (image.isEmpty() || driverImage.isEmpty()) {
      return Optional.of(
          "no images given: pass -Dthinvol.e2e.image=... -Dthinvol.e2e.driverImage=..."
              + " (packaging/image/build-local.sh builds them; e2e/run-on-kit.sh does it all)");
    }
    return Optional.empty();
  }

  private static String property(String name) {
    return System.getProperty(name, "").trim();
  }
}
