package io.thinvol.driver.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * The driver's logging, set up in code: one line per event on stderr, the MDC keys naming the RPC
 * and the volume. Found by logback through the service loader before it looks for an XML file;
 * configuring from XML loaded about 380 classes (logback's Joran and the JDK's XML parser), a few
 * MiB of metaspace on every node for a configuration that never changes.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {

  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} [rpc=%X{rpc:--} volume=%X{volume:--}]"
          + " %msg%n";

  private static final Map<String, Level> QUIETER =
      Map.of(
          "io.grpc", Level.WARN,
          "io.netty", Level.WARN,
          // grpc sets TCP options that do not apply to unix sockets; Netty warns on every channel.
          "io.netty.bootstrap", Level.ERROR,
          // A container without a network interface (the preflight's) has no MAC address for
          // Netty's channel ids; random bytes serve as well.
          "io.netty.util.internal.MacAddressUtil", Level.ERROR);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    String level = System.getenv("THINVOL_LOG_LEVEL");
    root.setLevel(Level.toLevel(level, Level.INFO));
    root.addAppender(stderr);
    QUIETER.forEach((name, quieter) -> context.getLogger(name).setLevel(quieter));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
