package io.thinvol.driver.cli;

import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code thinvol} entry point; this image's other entry point, the operator, joins later. */
@Command(
    name = "thinvol",
    mixinStandardHelpOptions = true,
    versionProvider = ThinvolCommand.VersionProvider.class,
    description = "Thin, node-local CSI volumes on sparse image files.",
    subcommands = {DriverCommand.class})
public final class ThinvolCommand {

  public static void main(String[] args) {
    // vfork+exec halves the cost of starting host commands compared with the default
    // posix_spawn through jspawnhelper; the driver starts several per NodeStage.
    System.setProperty("jdk.lang.Process.launchMechanism", "VFORK");
    NettyBuffers.unpooled();
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install(); // grpc-java logs through java.util.logging
    System.exit(
        new CommandLine(new ThinvolCommand())
            .setExecutionExceptionHandler(ThinvolCommand::report)
            .execute(args));
  }

  /** A setting or situation the user can fix is one line on stderr, not a stack trace. */
  private static int report(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
      command.getErr().println("thinvol: " + e.getMessage());
      return CommandLine.ExitCode.USAGE;
    }
    e.printStackTrace(command.getErr());
    return CommandLine.ExitCode.SOFTWARE;
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"thinvol " + Version.current()};
    }
  }
}
