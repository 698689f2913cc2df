package io.thinvol.driver.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The driver's own version (thinvol.driver.version), which the build stamped into the jar. */
final class Version {

  private Version() {}

  static String current() {
    try (InputStream in = Version.class.getResourceAsStream("/thinvol-version.properties")) {
      Properties properties = new Properties();
      if (in != null) {
        properties.load(in);
      }
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
