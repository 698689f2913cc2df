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
  public static final String CHANNEL = "alpha";

  public static Release current() {
    Properties properties = new Properties();
    try (InputStream in = Release.class.getResourceAsStream("/thinvol-release.properties")) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Release(properties.getProperty("version").replace("-SNAPSHOT", ""));
  }

  /** The one image with both entry points (operator and driver). */
  public String image() {
    return IMAGE_REPOSITORY + ":" + version;
  }

  public String csvName() {
    return PACKAGE + ".v" + version;
  }
}
