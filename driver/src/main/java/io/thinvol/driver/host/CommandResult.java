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
    return String.join(" ", argv)
        + " exited "
        + exitCode
        + (said.isEmpty() ? "" : ": " + abbreviate(said, 600));
  }

  private static String abbreviate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "...";
  }
}
