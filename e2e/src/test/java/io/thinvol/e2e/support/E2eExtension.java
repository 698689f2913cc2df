package io.thinvol.e2e.support;

import java.time.Duration;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;

/**
 * Gives every test class of the suite the one {@link World} (made at the first class, torn down
 * after the last), skips the suite where it cannot run, times each step for the table, and keeps
 * the evidence of a failed one ({@link FailureEvidence}).
 */
public final class E2eExtension
    implements BeforeEachCallback, BeforeTestExecutionCallback, AfterTestExecutionCallback {

  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(E2eExtension.class);

  // Per test rather than per class, so that a skipped suite counts its skipped steps.
  @Override
  public void beforeEach(ExtensionContext context) {
    World.open(context.getRoot().getStore(STORE));
  }

  @Override
  public void beforeTestExecution(ExtensionContext context) {
    context.getStore(STORE).put("start", System.nanoTime());
  }

  @Override
  public void afterTestExecution(ExtensionContext context) {
    long start = context.getStore(STORE).remove("start", Long.class);
    String result =
        context
            .getExecutionException()
            .map(e -> e instanceof TestAbortedException ? "skipped" : "FAILED")
            .orElse("passed");
    World world = World.current();
    StepTable steps = world.steps();
    context
        .getExecutionException()
        .filter(e -> !(e instanceof TestAbortedException))
        .ifPresent(
            e -> {
              steps.figure(String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
              new FailureEvidence(
                      world.kube().client(), world.settings().reports(), context.getDisplayName())
                  .collect();
            });
    steps.finish(context.getDisplayName(), Duration.ofNanos(System.nanoTime() - start), result);
  }
}
