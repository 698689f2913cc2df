package io.thinvol.driver.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * The driver's log line: {@code <time> <level> <logger's simple name> [rpc=<MDC rpc> volume=<MDC
 * volume>] <message>}, then the stack trace of a throwable, as logback's pattern {@code
 * %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} [rpc=%X{rpc:--} volume=%X{volume:--}]
 * %msg%n} writes it. Written in code because logback's {@code PatternLayout} registers a converter
 * for each of its ~60 keywords in its static initialiser: 151 more classes (converters, their
 * lambdas, the pattern parser) loaded on every node for the five a driver uses (docs/benchmarks.md,
 * "Driver memory, third session").
 */
final class LogLineLayout extends LayoutBase<ILoggingEvent> {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneId.systemDefault());
  private static final String NONE = "-";

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(160);
    TIME.formatTo(event.getInstant(), line);
    String level = event.getLevel().toString();
    line.append(' ').append(level);
    line.append(" ".repeat(Math.max(0, 5 - level.length())));
    String logger = event.getLoggerName();
    line.append(' ').append(logger, logger.lastIndexOf('.') + 1, logger.length());
    Map<String, String> mdc = event.getMDCPropertyMap();
    line.append(" [rpc=").append(valueOrNone(mdc, "rpc"));
    line.append(" volume=").append(valueOrNone(mdc, "volume")).append("] ");
    line.append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      line.append(ThrowableProxyUtil.asString(thrown));
    }
    return line.toString();
  }

  private static String valueOrNone(Map<String, String> mdc, String key) {
    String value = mdc.get(key);
    return value != null ? value : NONE;
  }
}
