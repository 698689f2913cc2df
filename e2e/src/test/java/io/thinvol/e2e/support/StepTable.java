package io.thinvol.e2e.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One row per step of the user's path: its time and the figure that tells whether it worked (bytes
 * given back, seconds to Ready, checksums equal). Printed at the end of the run.
 */
public final class StepTable {

  /** A finished step. */
  public record Row(String step, Duration time, String result, String figure) {}

  private final List<Row> rows = new ArrayList<>();
  private final List<String> figures = new ArrayList<>();

  /** Adds to the key figure of the step that runs now. */
  public synchronized void figure(String text) {
    figures.add(text);
  }

  synchronized void finish(String step, Duration time, String result) {
    rows.add(new Row(step, time, result, String.join("; ", figures)));
    figures.clear();
  }

  public synchronized List<Row> rows() {
    return List.copyOf(rows);
  }

  /** The table as Markdown, with the total time. */
  public synchronized String render() {
    StringBuilder out =
        new StringBuilder("| step | time | result | key figure |\n|---|---|---|---|\n");
    Duration total = Duration.ZERO;
    for (Row row : rows) {
      out.append("| ")
          .append(row.step())
          .append(" | ")
          .append(seconds(row.time()))
          .append(" | ")
          .append(row.result())
          .append(" | ")
          .append(row.figure().replace("|", "\\|").replace("\n", " "))
          .append(" |\n");
      total = total.plus(row.time());
    }
    return out.append("| total | ").append(seconds(total)).append(" | | |\n").toString();
  }

  static String seconds(Duration time) {
    return String.format(Locale.ROOT, "%.1f s", time.toMillis() / 1000.0);
  }
}
