package io.thinvol.packaging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The release the bundle and chart describe: the Maven version, without -SNAPSHOT. */
public record Release(String version) {

  public static final String PACKAGE = "thinvol";
  public static final String IMAGE_REPOSITORY = "quay.io/thinvol/thinvol";
  public static final String OPERATOR_NAMESPACE = "thinvol-system";
  public static final String MIN_KUBE_VERSION = "1.28.0";

  /**
   * One of the names operator-framework's good-practices validator recommends (stable, candidate,
   * fast); each release is an upgrade of the previous one.
   */
  public static final String CHANNEL = "stable";

  /** The oldest OpenShift it is for (docs/install.md): "v4.15" means 4.15 and later. */
  public static final String MIN_OPENSHIFT_VERSION = "v4.15";

  public static Release current() {
    Properties properties = new Properties();
    try (InputStream in = Release.class.getResourceAsStream("/thinvol-release.properties")) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Release(properties.getProperty("version").replace("-SNAPSHOT", ""));
  }

  /** The operator's image (the driver's is {@link io.thinvol.operator.model.DriverRelease}). */
  public String image() {
    return IMAGE_REPOSITORY + ":" + version;
  }

  public String csvName() {
    return PACKAGE + ".v" + version;
  }
}
