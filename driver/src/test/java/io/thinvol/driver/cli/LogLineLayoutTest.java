package io.thinvol.driver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.Layout;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The driver's log line is the one logback's pattern wrote before it was written in code. */
class LogLineLayoutTest {

  /** The pattern the driver configured until LogLineLayout replaced it. */
  private static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} [rpc=%X{rpc:--} volume=%X{volume:--}]"
          + " %msg%n";

  private final LoggerContext context = context();
  private final Layout<ILoggingEvent> pattern = patternLayout();
  private final LogLineLayout layout = new LogLineLayout();

  @Test
  void writesWhatThePatternWrote() {
    LoggingEvent event =
        event(Level.INFO, "unpublished {} from {}", null, "vol-1", "/var/lib/kubelet/pods/x");
    event.setMDCPropertyMap(Map.of("rpc", "NodeUnpublishVolume", "volume", "vol-1"));

    String line = layout.doLayout(event);

    assertThat(line).isEqualTo(pattern.doLayout(event));
    assertThat(line)
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO "
                + " NodeManager \\[rpc=NodeUnpublishVolume volume=vol-1\\] unpublished vol-1"
                + " from /var/lib/kubelet/pods/x"
                + System.lineSeparator());
  }

  @Test
  void writesADashForAKeyWithoutValueAndPadsTheLevel() {
    for (Level level : new Level[] {Level.ERROR, Level.WARN, Level.INFO, Level.DEBUG}) {
      LoggingEvent event = event(level, "serving", null);
      Map<String, String> mdc = new HashMap<>();
      mdc.put("rpc", "Probe");
      mdc.put("volume", null);
      event.setMDCPropertyMap(mdc);

      assertThat(layout.doLayout(event)).isEqualTo(pattern.doLayout(event)).contains("volume=-]");
    }
  }

  @Test
  void writesTheStackTraceOfAThrowableAndItsCause() {
    IllegalStateException thrown =
        new IllegalStateException("catalog unreadable", new IOException("disk gone"));
    LoggingEvent event = event(Level.WARN, "skipped {}", thrown, "meta.json");

    String line = layout.doLayout(event);

    assertThat(line).isEqualTo(pattern.doLayout(event));
    assertThat(line)
        .contains("java.lang.IllegalStateException: catalog unreadable")
        .contains("Caused by: java.io.IOException: disk gone")
        .contains("\tat io.thinvol.driver.cli.LogLineLayoutTest");
  }

  private LoggingEvent event(Level level, String message, Throwable thrown, Object... arguments) {
    Logger logger = context.getLogger("io.thinvol.driver.node.NodeManager");
    return new LoggingEvent(Logger.class.getName(), logger, level, message, thrown, arguments);
  }

  private static LoggerContext context() {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    return context;
  }

  private Layout<ILoggingEvent> patternLayout() {
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.setPattern(PATTERN);
    layout.start();
    return layout;
  }
}
