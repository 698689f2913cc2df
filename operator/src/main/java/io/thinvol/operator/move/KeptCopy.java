package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.grpc.Status;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.resolve.DriverEndpoint;
import io.thinvol.operator.transfer.QuickAnswers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A rollback whose source node is lost keeps the newest copy of the claim's data on the target, and
 * only one that exists there: the cut-over's copy when the target made it (without reflinks it was
 * applied in place onto the pre-copy's volume, which is then gone), under the copy's claim; else
 * the pre-copy, under its claim; else nothing. The target is asked for the copy with the cut-over's
 * own request, idempotent by name: a copy that was made is answered without the source (and one
 * still running is waited for); one never made is tried once more from the lost source, which fails
 * (or, if that node can still be reached, makes it). Nothing the target holds is dropped.
 */
final class KeptCopy {

  /** What a rollback keeps on the target. */
  enum Kept {
    /** The cut-over's copy, under the claim {@code thinvol-move-<id>-cut}. */
    COPY,
    /** The pre-copy, under the claim {@code thinvol-move-<id>-base}. */
    PRE_COPY,
    NOTHING
  }

  /** What the rollback keeps, or when to look again. */
  record Decided(Kept kept, Duration lookAgain) {

    static Decided keep(Kept kept) {
      return new Decided(kept, null);
    }

    static Decided after(Duration wait) {
      return new Decided(null, wait);
    }
  }

  private KeptCopy() {}

  /** Whether a move that fails now keeps a copy: its pre-copy was done and its source is lost. */
  static boolean applies(Move move) {
    return move.status().getPreCopyCompletionTime() != null
        && move.status().getSourceNode() != null
        && move.services().nodes().health(move.status().getSourceNode()).lost();
  }

  /** Once the claim is bound to its old volume again: which copy is kept, made a claim's. */
  static Decided decide(Move move, PersistentVolume old) {
    if (move.status().getTargetVolumeHandle() == null) {
      Optional<String> s2 =
          move.cluster()
              .snapshotContent(move.names().cut())
              .flatMap(SnapshotObjects::importedHandle);
      if (s2.isEmpty()) {
        return preCopy(move, old, null); // no copy was asked
      }
      Decided asked = askAgain(move, old, s2.get());
      if (asked != null) {
        return asked;
      }
    }
    return copy(move, old);
  }

  /**
   * The cut-over's copy asked of the target again; null once its answer is recorded.
   *
   * @param s2 the cut-over snapshot's handle
   */
  private static Decided askAgain(Move move, PersistentVolume old, String s2) {
    MoveNames names = move.names();
    String target = move.status().getTargetNode();
    Optional<String> base = preCopyHandle(move);
    if (base.isEmpty()) {
      return Decided.keep(Kept.NOTHING); // no pre-copy, so no copy onto it
    }
    Optional<DriverEndpoint> endpoint = SourceFacts.endpoint(move, old, target);
    if (endpoint.isEmpty()) {
      return unanswered(move, target);
    }
    SavedClaim claim = SavedClaim.on(old).orElseThrow();
    move.cluster().ensure(ClaimObjects.entitlement(names, claim));
    String uid = move.resource().getMetadata().getUid();
    Optional<CompletableFuture<CopiedIn>> ended =
        move.services()
            .calls()
            .askAgain(
                ResourceID.fromResource(move.resource()),
                uid,
                endpoint.get(),
                CutOverCopy.request(names, s2, base.get()));
    if (ended.isEmpty()) {
      move.message(
          "rolling back: the claim is bound to its old volume again; asking node "
              + target
              + " whether it holds the cut-over's copy, to keep it");
      move.save();
      return Decided.after(CutOverCopy.POLL);
    }
    try {
      CutOverCopy.recorded(move, ended.get().join());
      move.services().calls().answered(uid);
      return null;
    } catch (CompletionException e) {
      Status failure = Status.fromThrowable(e.getCause());
      if (failure.getCode() == Status.Code.ABORTED) {
        return Decided.after(UnrecordedCopy.WHILE_RUNNING); // the copy still runs there
      }
      return preCopy(move, old, failure);
    }
  }

  /** The copy the target answered: its volume bound to the copy's claim. */
  private static Decided copy(Move move, PersistentVolume old) {
    MoveNames names = move.names();
    MoveCluster cluster = move.cluster();
    String handle = move.status().getTargetVolumeHandle();
    String target = move.status().getTargetNode();
    String policy = move.status().getOriginalReclaimPolicy();
    Optional<PersistentVolume> made = cluster.volume(names.newVolume());
    if (made.isPresent() && discarded(made.get(), names)) {
      return preCopy(move, old, null); // given to its provisioner before the source was lost
    }
    if (made.isEmpty()) {
      QuickAnswers.Asked<?> asked =
          SourceFacts.ask(
              move,
              old,
              target,
              (copier, driver) -> copier.space(driver, handle, SourceFacts.QUICK));
      if (asked.failure() != null) {
        return asked.failure().getCode() == Status.Code.NOT_FOUND
            ? preCopy(move, old, null)
            : unanswered(move, target);
      }
      cluster.ensure(VolumeObjects.kept(names, old, handle, target, policy));
    } else if (made.get().getSpec().getClaimRef() == null
        || !names.cut().equals(made.get().getSpec().getClaimRef().getName())) {
      cluster.patchVolume(names.newVolume(), VolumeObjects.keptPatch(names, policy));
    }
    Optional<PersistentVolumeClaim> claim = cluster.claim(names.namespace(), names.cut());
    if (claim.isEmpty()) {
      cluster.ensure(ClaimObjects.entitlement(names, SavedClaim.on(old).orElseThrow()));
    }
    if (claim.isEmpty() || !ClaimState.bound(claim.get(), names.newVolume())) {
      move.message(
          "rolling back: the claim is bound to its old volume again; waiting for"
              + " PersistentVolumeClaim "
              + names.cut()
              + " to be bound to the cut-over's copy "
              + names.newVolume()
              + ", which is kept");
      move.save();
      return Decided.after(CutOverCopy.POLL);
    }
    return Decided.keep(Kept.COPY);
  }

  /**
   * No copy to keep: the pre-copy, if the target still holds its volume.
   *
   * @param copyFailure why the copy asked again failed, or null
   */
  private static Decided preCopy(Move move, PersistentVolume old, Status copyFailure) {
    Optional<String> base = preCopyHandle(move);
    if (base.isEmpty()) {
      return Decided.keep(Kept.NOTHING);
    }
    String target = move.status().getTargetNode();
    QuickAnswers.Asked<?> asked =
        SourceFacts.ask(
            move,
            old,
            target,
            (copier, driver) -> copier.space(driver, base.get(), SourceFacts.QUICK));
    if (asked.failure() == null) {
      return Decided.keep(Kept.PRE_COPY);
    }
    if (asked.failure().getCode() != Status.Code.NOT_FOUND) {
      return unanswered(move, target);
    }
    if (copyFailure == null || copyFailure.getCode() == Status.Code.NOT_FOUND) {
      return Decided.keep(Kept.NOTHING); // the target holds neither
    }
    // The copy consumed the pre-copy, and failed after its commit: the target finishes it.
    return Decided.after(UnrecordedCopy.WHILE_RUNNING);
  }

  /** The target's driver does not answer: looked at again, unless the target is lost too. */
  private static Decided unanswered(Move move, String target) {
    if (move.services().nodes().health(target).lost()) {
      return Decided.keep(Kept.PRE_COPY); // nothing can tell: the pre-copy's claim stays
    }
    move.message(
        "rolling back: the claim is bound to its old volume again; waiting for the driver on node "
            + target
            + " to tell which copy of the data it holds, to keep it");
    move.save();
    return Decided.after(UnrecordedCopy.WHILE_RUNNING);
  }

  /** The volume handle of the pre-copy's claim, if it and its PersistentVolume exist. */
  private static Optional<String> preCopyHandle(Move move) {
    MoveNames names = move.names();
    return move.cluster()
        .claim(names.namespace(), names.baseClaim())
        .map(claim -> claim.getSpec().getVolumeName())
        .flatMap(move.cluster()::volume)
        .map(pv -> pv.getSpec().getCsi().getVolumeHandle());
  }

  private static boolean discarded(PersistentVolume volume, MoveNames names) {
    var ref = volume.getSpec().getClaimRef();
    return ref != null && VolumeObjects.discardedClaimUid(names).equals(ref.getUid());
  }

  /** The Warning that names the claim kept and what it holds. */
  static void say(Move move, Kept kept) {
    MoveNames names = move.names();
    String held =
        switch (kept) {
          case COPY ->
              held(
                  move,
                  names.cut(),
                  "the cut-over ("
                      + move.status().getCutOverStartTime()
                      + "), all that was written before the claim was deleted for it");
          case PRE_COPY ->
              held(
                  move,
                  names.baseClaim(),
                  "the pre-copy ("
                      + move.status().getPreCopyCompletionTime()
                      + "), not what was written since");
          case NOTHING -> null;
        };
    if (held != null) {
      move.warning(
          kept == Kept.COPY ? "CopyKept" : "PreCopyKept",
          "the source node "
              + move.status().getSourceNode()
              + " is lost: PersistentVolumeClaim "
              + held
              + "; clone it into a claim of your own, or delete it");
    }
  }

  private static String held(Move move, String keptClaim, String asOf) {
    return keptClaim
        + " on node "
        + move.status().getTargetNode()
        + " is kept. It holds the data of PersistentVolumeClaim "
        + move.names().claim()
        + " as of "
        + asOf;
  }
}
