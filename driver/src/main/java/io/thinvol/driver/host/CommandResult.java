package io.thinvol.driver.host;

import java.time.Duration;
import java.util.List;

/** What a finished host command produced. */
public record CommandResult(
    List<String> argv, int exitCode, String stdout, String stderr, Duration elapsed) {

  public boolean succeeded() {
    return exitCode == 0;
  }

  /** One line a person can read: the command, its exit code and what it said on stderr. */
  public String describe() {
    String said = stderr.isBlank() ? stdout.strip() : stderr.strip();
    return shown(argv)
        + " exited "
        + exitCode
        + (said.isEmpty() ? "" : ": " + abbreviate(said, 600));
  }

  /**
   * The command line as it may be logged or returned: mount options can carry credentials (the CSI
   * spec says mount_flags may be sensitive), so the value after {@code -o} is masked.
   */
  public static String shown(List<String> argv) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < argv.size(); i++) {
      if (i > 0) {
        line.append(' ');
      }
      boolean masked = i > 0 && "-o".equals(argv.get(i - 1)) && "mount".equals(argv.get(0));
      line.append(masked ? "<options>" : argv.get(i));
    }
    return line.toString();
  }

  private static String abbreviate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "...";
  }
}
