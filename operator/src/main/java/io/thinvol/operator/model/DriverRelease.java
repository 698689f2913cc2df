package io.thinvol.operator.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The driver image this operator deploys unless {@code RELATED_IMAGE_DRIVER} or a backend's spec
 * names another: its own repository, tagged with the driver's own version ({@code
 * thinvol.driver.version}, stamped by the build), which changes only when the driver does. So an
 * operator release that keeps the driver keeps the node pods' template.
 */
public final class DriverRelease {

  public static final String REPOSITORY = "quay.io/thinvol/thinvol-driver";
  public static final String VERSION = version();
  public static final String IMAGE = REPOSITORY + ":" + VERSION;

  private DriverRelease() {}

  private static String version() {
    try (InputStream in = DriverRelease.class.getResourceAsStream("/thinvol-driver.properties")) {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
