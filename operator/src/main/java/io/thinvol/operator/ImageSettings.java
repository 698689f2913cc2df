package io.thinvol.operator;

import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the node pods' driver image comes from: {@value #DRIVER_IMAGE}, set by the CSV and the
 * chart as the other {@code RELATED_IMAGE_*} variables are (so mirrored, digest-pinned installs
 * work). It is a reference that moves only when the driver changes; were it the operator's own
 * image, every operator or addons release would change the DaemonSet's template and roll every
 * node. Read here and nowhere else.
 */
public final class ImageSettings {

  /** The environment variable naming the driver image. */
  public static final String DRIVER_IMAGE = "RELATED_IMAGE_DRIVER";

  private static final Logger log = LoggerFactory.getLogger(ImageSettings.class);

  private ImageSettings() {}

  /**
   * The driver image from {@code environment}, else {@code operatorImage} (a development run), said
   * in the log because then every operator upgrade rolls the node pods.
   */
  public static String driverImage(Map<String, String> environment, String operatorImage) {
    Optional<String> configured =
        Optional.ofNullable(environment.get(DRIVER_IMAGE))
            .map(String::trim)
            .filter(v -> !v.isEmpty());
    if (configured.isEmpty()) {
      log.warn(
          "{} is not set: the node pods run the operator's image {}, so every operator upgrade"
              + " restarts the driver on every node",
          DRIVER_IMAGE,
          operatorImage);
    }
    return configured.orElse(operatorImage);
  }
}
