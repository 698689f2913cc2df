package io.thinvol.operator.monitoring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The thinvol dashboard in Grafana's JSON model, as shipped in the operator's jar. */
public final class GrafanaDashboard {

  private static final String RESOURCE = "dashboard.json";

  private GrafanaDashboard() {}

  public static String json() {
    try (InputStream in = GrafanaDashboard.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the operator's jar lacks " + RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
