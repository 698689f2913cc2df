package io.thinvol.packaging;

import java.util.LinkedHashMap;
import java.util.Map;

/** Maps that keep the order they were written in, so generated files are the same every run. */
final class Ordered {

  private Ordered() {}

  /** Keys and values, alternating. */
  static Map<String, Object> map(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }
}
