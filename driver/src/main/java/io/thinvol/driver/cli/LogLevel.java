package io.thinvol.driver.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Applies {@code --log-level} to the root logger. */
final class LogLevel {

  private LogLevel() {}

  static void set(String level) {
    Level parsed = Level.toLevel(level, null);
    if (parsed == null) {
      throw new IllegalArgumentException(
          "unknown log level " + level + "; use ERROR, WARN, INFO, DEBUG or TRACE");
    }
    ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(parsed);
  }
}
