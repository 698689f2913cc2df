package io.thinvol.operator;

import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The drivers' MoveCopy services as they are, but for one copy-in whose answer never reaches the
 * operator: the target's driver makes the copy, and then {@code meanwhile} happens (a node is lost)
 * before the answer would arrive, as when the operator learns of a node's loss between the target's
 * commit of the copy and its answer.
 */
final class LateCopyAnswer implements MoveCopier {

  private final MoveCopier drivers;
  private final AtomicReference<Runnable> meanwhile = new AtomicReference<>();

  LateCopyAnswer(MoveCopier drivers) {
    this.drivers = drivers;
  }

  /** The next copy-in's answer is withheld, and {@code then} runs once the copy is made. */
  void withholdNextCopy(Runnable then) {
    meanwhile.set(then);
  }

  @Override
  public CompletableFuture<CopiedIn> copyIn(
      DriverEndpoint target, CopyIn request, Duration timeout) {
    Runnable then = meanwhile.getAndSet(null);
    if (then == null) {
      return drivers.copyIn(target, request, timeout);
    }
    CompletableFuture<CopiedIn> withheld = new CompletableFuture<>();
    drivers
        .copyIn(target, request, timeout)
        .whenComplete(
            (copied, failure) -> {
              if (failure != null) {
                withheld.completeExceptionally(failure);
              } else {
                then.run();
              }
            });
    return withheld;
  }

  @Override
  public CompletableFuture<Taken> snapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    return drivers.snapshot(source, request, timeout);
  }

  @Override
  public CompletableFuture<Boolean> dropSnapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    return drivers.dropSnapshot(source, request, timeout);
  }

  @Override
  public CompletableFuture<Boolean> dropVolume(
      DriverEndpoint target, String name, String snapshotId, Duration timeout) {
    return drivers.dropVolume(target, name, snapshotId, timeout);
  }

  @Override
  public CompletableFuture<VolumeSpace> space(
      DriverEndpoint node, String volumeId, Duration timeout) {
    return drivers.space(node, volumeId, timeout);
  }

  @Override
  public CompletableFuture<CopiedIn> replicaIn(
      DriverEndpoint standby, ReplicaIn request, Duration timeout) {
    return drivers.replicaIn(standby, request, timeout);
  }

  @Override
  public CompletableFuture<List<String>> synced(
      DriverEndpoint node, Synced request, Duration timeout) {
    return drivers.synced(node, request, timeout);
  }

  @Override
  public CompletableFuture<Boolean> role(
      DriverEndpoint node,
      Role change,
      String volumeId,
      String replicationId,
      boolean force,
      Duration timeout) {
    return drivers.role(node, change, volumeId, replicationId, force, timeout);
  }
}
