package io.thinvol.operator.monitoring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The monitoring files shipped in the operator's jar next to these classes. */
final class MonitoringResources {

  private MonitoringResources() {}

  static String text(String name) {
    try (InputStream in = MonitoringResources.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the operator's jar lacks " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
