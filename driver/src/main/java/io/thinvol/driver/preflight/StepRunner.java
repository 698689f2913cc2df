package io.thinvol.driver.preflight;

import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * Runs named steps in order, printing each with its time and result. After the first failure the
 * remaining steps are skipped (they depend on it); cleanup steps run regardless.
 */
final class StepRunner {

  private final PrintStream out;
  private int passed;
  private int failed;
  private int skipped;
  private int number;

  StepRunner(PrintStream out) {
    this.out = out;
  }

  /** Runs {@code body} unless an earlier step failed; its return value is the detail printed. */
  void step(String name, Callable<String> body) {
    number++;
    if (failed > 0) {
      skipped++;
      print("SKIP", name, 0, "an earlier step failed");
      return;
    }
    run(name, body);
  }

  /** Runs {@code body} whatever happened before. */
  void always(String name, Callable<String> body) {
    number++;
    run(name, body);
  }

  private void run(String name, Callable<String> body) {
    long start = System.nanoTime();
    try {
      String detail = body.call();
      passed++;
      print("PASS", name, System.nanoTime() - start, detail);
    } catch (Exception e) {
      failed++;
      print("FAIL", name, System.nanoTime() - start, describe(e));
    }
  }

  /**
   * What a person reads on the failure line: the message the check or the driver wrote for them,
   * not a Java class. Only an error that carries no message (a defect) is named by its class.
   */
  static String describe(Exception e) {
    if (e instanceof StatusRuntimeException status) {
      return status.getStatus().getCode() + ": " + status.getStatus().getDescription();
    }
    String message = e.getMessage() == null || e.getMessage().isBlank() ? null : e.getMessage();
    if (e instanceof IOException) {
      // a java.nio message is often a bare path
      return "cannot read or write a file: " + (message == null ? "no detail given" : message);
    }
    return message != null
        ? message
        : "failed without a message (" + e.getClass().getName() + "); see the log above";
  }

  private void print(String verdict, String name, long nanos, String detail) {
    out.printf(
        "%2d. %-4s %-44s %8.1f ms  %s%n",
        number, verdict, name, nanos / 1_000_000.0, detail == null ? "" : detail);
    out.flush();
  }

  int failed() {
    return failed;
  }

  String summary() {
    return String.format(
        "preflight %s: %d steps passed, %d failed, %d skipped",
        failed == 0 ? "succeeded" : "FAILED", passed, failed, skipped);
  }
}
