package io.thinvol.addons.job;

import io.grpc.Status;
import io.thinvol.addons.call.ReclaimCaller;
import io.thinvol.addons.call.ReclaimService;
import io.thinvol.addons.call.Usage;
import io.thinvol.addons.resolve.VolumeLocation;
import io.thinvol.api.v1alpha1.ReclaimMode;
import io.thinvol.api.v1alpha1.ReclaimStep;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs the calls of one attempt in the order the job's mode asks. In Auto mode a volume that is not
 * staged on its node (FAILED_PRECONDITION), or that the node service cannot trim while mounted
 * (UNIMPLEMENTED, block volumes), goes on to ControllerReclaimSpace, which reclaims unused volumes
 * offline and refuses volumes in use.
 */
final class Attempts {

  private final ReclaimCaller caller;

  Attempts(ReclaimCaller caller) {
    this.caller = caller;
  }

  CompletableFuture<AttemptResult> run(VolumeLocation location, ReclaimMode mode) {
    return switch (mode) {
      case NodeOnly -> call(location, ReclaimService.NODE).thenApply(s -> s.alone());
      case ControllerOnly -> call(location, ReclaimService.CONTROLLER).thenApply(s -> s.alone());
      case Auto ->
          call(location, ReclaimService.NODE)
              .thenCompose(
                  node ->
                      node.handsOver()
                          ? call(location, ReclaimService.CONTROLLER)
                              .thenApply(controller -> controller.after(node))
                          : CompletableFuture.completedFuture(node.alone()));
    };
  }

  /** One call's answer. */
  private record StepOutcome(ReclaimService service, Usage usage, Status failure) {

    boolean handsOver() {
      return failure != null
          && service == ReclaimService.NODE
          && (failure.getCode() == Status.Code.FAILED_PRECONDITION
              || failure.getCode() == Status.Code.UNIMPLEMENTED);
    }

    ReclaimStep step(String ifFailed) {
      return failure == null
          ? new ReclaimStep(AttemptResult.SUCCEEDED, "reclaimed")
          : new ReclaimStep(ifFailed, Errors.describe(failure));
    }

    AttemptResult alone() {
      ReclaimStep step = step(AttemptResult.FAILED);
      return service == ReclaimService.NODE
          ? new AttemptResult(step, null, usage, failure, failure == null ? null : service)
          : new AttemptResult(null, step, usage, failure, failure == null ? null : service);
    }

    /** This controller call after a node call that handed over. */
    AttemptResult after(StepOutcome node) {
      return new AttemptResult(
          node.step(AttemptResult.SKIPPED),
          step(AttemptResult.FAILED),
          usage,
          failure,
          failure == null ? null : service);
    }
  }

  private CompletableFuture<StepOutcome> call(VolumeLocation location, ReclaimService service) {
    return caller
        .call(location.endpoint(), service, location.volumeId(), location.timeout())
        .handle(
            (usage, error) ->
                error == null
                    ? new StepOutcome(service, usage, null)
                    : new StepOutcome(service, Usage.UNKNOWN, Status.fromThrowable(unwrap(error))));
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }
}
