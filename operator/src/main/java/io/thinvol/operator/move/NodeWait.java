package io.thinvol.operator.move;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.thinvol.api.kube.Conditions;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.operator.nodeloss.NodeHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a move does while its source or target node is not Ready (docs/moves.md, "A node NotReady or
 * lost during a move"). The condition {@value #CONDITION} and a Warning say which node, since when,
 * and what happens when: before the claim is deleted the move waits up to the backend's {@code
 * spec.moves.nodeNotReadySeconds} and then fails, removing what it made; once the claim is deleted
 * the cut-over goes on where it can and rolls back at its deadline; once the claim is bound to the
 * new volume, the old one is kept until the target is Ready. A lost node (deleted, or tainted
 * out-of-service) is not waited for. The node's return clears the condition (Normal {@code
 * NodeReady}) and the move goes on.
 */
final class NodeWait {

  static final String CONDITION = "NodeNotReady";

  /** A node's change wakes its moves at once (their watch); this is the fallback. */
  static final Duration POLL = Duration.ofSeconds(5);

  private static final String SOURCE = "source";
  private static final String TARGET = "target";

  /** What the move does once its claim is bound to the new volume. */
  enum Release {
    /** The target is Ready: the old volume may go. */
    GO,
    /** The target is NotReady: the old volume is kept meanwhile. */
    HOLD,
    /** The target is lost: the move ended, the old volume kept. */
    ENDED
  }

  /** A node of the move that is not Ready. */
  private record Trouble(String role, String node, NodeHealth health) {

    String reason() {
      return (SOURCE.equals(role) ? "Source" : "Target")
          + (health.lost() ? "NodeLost" : "NodeNotReady");
    }

    String said() {
      return "the " + role + " node " + node + " is " + health.describe();
    }
  }

  private NodeWait() {}

  /**
   * Before the claim is deleted (Pending once accepted, PreCopying, WaitingForCutOver): the
   * application is untouched, so the move waits for both nodes, up to its deadline.
   *
   * @return when to look again while it waits, or null when both nodes are Ready
   * @throws MoveFailure a node is lost, or NotReady past the deadline
   */
  static Duration beforeClaimDeleted(Move move) throws MoveFailure {
    Optional<Trouble> trouble = trouble(move, true, true);
    if (trouble.isEmpty()) {
      cleared(move, true);
      return null;
    }
    Trouble t = trouble.get();
    String untouched = "; PersistentVolumeClaim " + move.names().claim() + " was not changed";
    if (t.health().lost()) {
      String why = t.said() + ": the move removed what it made" + untouched;
      raise(move, t, why);
      throw MoveFailure.failed(t.reason(), why);
    }
    Duration limit = MoveDeadlines.of(move).nodeNotReady();
    Instant deadline = since(move).plus(limit);
    if (move.now().isAfter(deadline)) {
      String why =
          t.said()
              + ", for longer than "
              + MoveDeadlines.say(limit)
              + ": the move removed what it made"
              + untouched;
      raise(move, t, why);
      throw MoveFailure.failed(t.reason(), why);
    }
    String message =
        t.said()
            + ": the move waits, and goes on by itself if the node is Ready by "
            + deadline
            + "; after that it fails and removes what it made"
            + untouched;
    raise(move, t, message);
    move.message(message);
    move.save();
    return POLL;
  }

  /**
   * The cut-over before its claim was deleted: a node that is not Ready sends it back to
   * WaitingForCutOver (its admission policy goes), where {@link #beforeClaimDeleted} applies.
   *
   * @return whether it went back
   */
  static boolean cutOverNotBegun(Move move) {
    if (trouble(move, true, true).isEmpty()) {
      return false;
    }
    move.cluster().deletePolicy(move.names());
    move.status().setCutOverStartTime(null);
    move.phase(
        MovePhase.WaitingForCutOver,
        "a node of the move is not Ready; the cut-over begins once both are");
    move.condition(MoveStatusModel.CUT_OVER, false, "Waiting", move.status().getMessage());
    move.save();
    return true;
  }

  /**
   * The cut-over once the claim was deleted: it goes on where it can (a call in flight may still
   * end well); a lost node, or a node still NotReady at the cut-over's deadline, rolls it back,
   * giving up the calls in flight. The source matters until the copy is recorded, the target
   * throughout.
   *
   * @return whether the cut-over must roll back now (the rollback is begun)
   */
  static boolean duringCutOver(Move move, PersistentVolume old) throws MoveFailure {
    boolean copied = move.status().getTargetVolumeHandle() != null;
    Optional<Trouble> trouble = trouble(move, !copied, true);
    if (trouble.isEmpty()) {
      cleared(move, !copied);
      return false;
    }
    Trouble t = trouble.get();
    Duration limit = MoveDeadlines.of(move, old).cutOver();
    Instant deadline = Instant.parse(move.status().getCutOverStartTime()).plus(limit);
    String back =
        "PersistentVolumeClaim "
            + move.names().claim()
            + " is bound to its old volume "
            + old.getMetadata().getName()
            + " on node "
            + move.status().getSourceNode()
            + " again";
    if (t.health().lost() || move.now().isAfter(deadline)) {
      String why =
          t.health().lost()
              ? t.said()
              : t.said() + " and the cut-over began more than " + MoveDeadlines.say(limit) + " ago";
      raise(move, t, why + ": rolling back; " + back + " once done");
      move.services().calls().cancel(move.resource().getMetadata().getUid());
      Rollback.begin(move, t.reason(), why);
      return true;
    }
    String message =
        t.said()
            + ": the cut-over goes on when the node is Ready; if it has not finished by "
            + deadline
            + ", it rolls back: "
            + back;
    raise(move, t, message);
    move.holdMessage(message);
    return false;
  }

  /** Once the claim is bound to the new volume, before the old one is let go. */
  static Release beforeReleasingSource(Move move, PersistentVolume old) {
    Optional<Trouble> trouble = trouble(move, false, true);
    if (trouble.isEmpty()) {
      cleared(move, false);
      return Release.GO;
    }
    Trouble t = trouble.get();
    String oldVolume =
        "the old volume "
            + old.getMetadata().getName()
            + " on node "
            + move.status().getSourceNode();
    String claim =
        "PersistentVolumeClaim "
            + move.names().claim()
            + " is bound to its new volume "
            + move.names().newVolume()
            + " on node "
            + t.node();
    if (!t.health().lost()) {
      String message =
          claim
              + ", which is "
              + t.health().describe()
              + "; "
              + oldVolume
              + " is kept until it is Ready";
      raise(move, t, message);
      move.message(message);
      move.save();
      return Release.HOLD;
    }
    String message =
        claim
            + ", which is "
            + t.health().describe()
            + "; "
            + oldVolume
            + " is kept (reclaim policy Retain) with the data as of the cut-over: to use it, bind"
            + " the claim to it again (docs/moves.md, \"The target node lost after the cut-over\")";
    raise(move, t, message);
    TemporaryObjects.remove(move);
    move.cluster().patchVolume(old.getMetadata().getName(), VolumeObjects.releasePatch("Retain"));
    move.warning("SourceKept", message);
    TemporaryObjects.end(move, t.reason(), message, false);
    return Release.ENDED;
  }

  /** What the first of the move's nodes that is not Ready is, if one is. */
  static Optional<String> notReady(Move move) {
    return trouble(move, true, true).map(Trouble::said);
  }

  /** The first of the move's nodes asked for that is not Ready, the source first. */
  private static Optional<Trouble> trouble(Move move, boolean source, boolean target) {
    MoveNodes nodes = move.services().nodes();
    if (source) {
      String node = move.status().getSourceNode();
      NodeHealth health = nodes.health(node);
      if (!health.ready() && !(health.lost() && ReplicaMove.failsOver(move))) {
        return Optional.of(new Trouble(SOURCE, node, health));
      }
    }
    if (target) {
      String node = move.status().getTargetNode();
      NodeHealth health = nodes.health(node);
      if (!health.ready()) {
        return Optional.of(new Trouble(TARGET, node, health));
      }
    }
    return Optional.empty();
  }

  /** Sets the condition; a Warning when it is news (it was not raised, or for another reason). */
  private static void raise(Move move, Trouble trouble, String message) {
    Optional<Condition> before = Conditions.find(move.status().getConditions(), CONDITION);
    boolean news =
        before.isEmpty()
            || !"True".equals(before.get().getStatus())
            || !trouble.reason().equals(before.get().getReason());
    move.condition(CONDITION, true, trouble.reason(), message);
    if (news) {
      move.warning("NodeNotReady", message);
    }
  }

  /** Since when the move has seen a node of its not Ready: the condition's, or now. */
  private static Instant since(Move move) {
    return Conditions.find(move.status().getConditions(), CONDITION)
        .filter(c -> "True".equals(c.getStatus()))
        .map(c -> Instant.parse(c.getLastTransitionTime()))
        .orElse(move.now());
  }

  /**
   * The nodes that matter Ready again: the condition says so once, with a Normal Event.
   *
   * @param source whether the source node matters (it does until the copy is recorded)
   */
  private static void cleared(Move move, boolean source) {
    if (!Conditions.isTrue(move.status().getConditions(), CONDITION)) {
      return;
    }
    String target = "the target node " + move.status().getTargetNode();
    boolean sourceReady =
        source && move.services().nodes().health(move.status().getSourceNode()).ready();
    String message =
        (sourceReady
                ? "the source node " + move.status().getSourceNode() + " and " + target + " are"
                : target + " is")
            + " Ready; the move goes on";
    move.condition(CONDITION, false, "NodesReady", message);
    move.normal("NodeReady", message);
    move.save();
  }
}
