package io.thinvol.operator;

import io.thinvol.addons.call.MoveCopier;
import io.thinvol.addons.resolve.DriverEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The drivers' MoveCopy services as a move's tests want them: each node's space answers a fixed
 * allocation, a snapshot and a copy-in answer what the test set (by default a snapshot and a new
 * volume of the request's name).
 */
final class FakeMoveCopier implements MoveCopier {

  static final long ALLOCATED = 96L << 20;
  static final long DELTA = 3L << 20;
  static final long SIZE = 1L << 30;

  final List<CopyIn> copies = new CopyOnWriteArrayList<>();
  final List<String> spaceAsked = new CopyOnWriteArrayList<>();
  final List<SnapshotOf> snapshots = new CopyOnWriteArrayList<>();
  final List<SnapshotOf> dropped = new CopyOnWriteArrayList<>();
  final List<String> droppedCopies = new CopyOnWriteArrayList<>();
  volatile Supplier<CompletableFuture<Boolean>> dropVolume =
      () -> CompletableFuture.completedFuture(true);
  volatile Function<SnapshotOf, CompletableFuture<Taken>> snapshot =
      request -> CompletableFuture.completedFuture(new Taken("snap-" + request.name(), SIZE));
  volatile Function<CopyIn, CompletableFuture<CopiedIn>> copyIn =
      request ->
          CompletableFuture.completedFuture(
              new CopiedIn("copied-" + request.name(), SIZE, "snap-base", DELTA));

  @Override
  public CompletableFuture<CopiedIn> copyIn(
      DriverEndpoint target, CopyIn request, Duration timeout) {
    copies.add(request);
    return copyIn.apply(request);
  }

  @Override
  public CompletableFuture<Taken> snapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    snapshots.add(request);
    return snapshot.apply(request);
  }

  @Override
  public CompletableFuture<Boolean> dropSnapshot(
      DriverEndpoint source, SnapshotOf request, Duration timeout) {
    dropped.add(request);
    return CompletableFuture.completedFuture(true);
  }

  @Override
  public CompletableFuture<Boolean> dropVolume(
      DriverEndpoint target, String name, String snapshotId, Duration timeout) {
    droppedCopies.add(name + " " + snapshotId);
    return dropVolume.get();
  }

  @Override
  public CompletableFuture<VolumeSpace> space(
      DriverEndpoint node, String volumeId, Duration timeout) {
    spaceAsked.add(node.podName() + ":" + volumeId);
    return CompletableFuture.completedFuture(new VolumeSpace(SIZE, ALLOCATED));
  }

  final List<ReplicaIn> replicas = new CopyOnWriteArrayList<>();
  final List<Synced> synced = new CopyOnWriteArrayList<>();
  final List<String> roles = new CopyOnWriteArrayList<>();

  @Override
  public CompletableFuture<CopiedIn> replicaIn(
      DriverEndpoint standby, ReplicaIn request, Duration timeout) {
    replicas.add(request);
    return CompletableFuture.completedFuture(
        new CopiedIn(
            "replica-" + request.name(),
            SIZE,
            "",
            request.baseVolumeId() == null ? ALLOCATED : DELTA));
  }

  @Override
  public CompletableFuture<List<String>> synced(
      DriverEndpoint node, Synced request, Duration timeout) {
    synced.add(request);
    return CompletableFuture.completedFuture(List.of());
  }

  @Override
  public CompletableFuture<Boolean> role(
      DriverEndpoint node,
      Role change,
      String volumeId,
      String replicationId,
      boolean force,
      Duration timeout) {
    roles.add(change + " " + volumeId + " on " + node.podName());
    return CompletableFuture.completedFuture(change != Role.RESYNC);
  }
}
