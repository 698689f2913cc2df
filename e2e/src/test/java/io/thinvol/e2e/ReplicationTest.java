package io.thinvol.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.thinvol.e2e.support.Applications;
import io.thinvol.e2e.support.Names;
import io.thinvol.e2e.support.Replications;
import io.thinvol.e2e.support.Waits;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A replicated claim, as docs/replication.md tells an admin: a StatefulSet writes on the kit's
 * joined node, a VolumeReplication keeps a replica on the host's node; the joined node loses power
 * and the admin taints it out-of-service, and the application runs on the host's node with the data
 * of the last sync, the write after it reported lost; the node comes back and its stale copy is
 * demoted, never mounted, and replaced by a new replica; a planned switchover takes the claim back
 * with nothing lost; deleting the VolumeReplication deletes the replica. The joined node is the one
 * lost because the kit can stop only the nodes it joined.
 */
@Order(12)
class ReplicationTest extends E2eSteps {

  private static final Duration LIMIT = Duration.ofMinutes(5);
  private static final String APP = "replicated";
  private static final String CLAIM = "data-replicated-0";
  private static final String CLASS = "e2e-every-minute";
  private static final Duration INTERVAL = Duration.ofMinutes(1);

  /** How long before the next sync the marker is written and the node cut off, at the least. */
  private static final Duration MARGIN = Duration.ofSeconds(25);

  private static final String FAILED_OVER = "replication.failedOver";
  private static final String NODE_BACK = "replication.nodeBack";
  private static final String SWITCHED_BACK = "replication.switchedBack";

  private static String sum;

  private static Replications replications() {
    return new Replications(client());
  }

  @Test
  @Order(1)
  @DisplayName("replicated to the host's node; failed over there when its node is shut down")
  void failoverOnNodeLoss() {
    requireBackend();
    String other = world().requireJoinedNode();
    String host = world().settings().hostNode();
    Applications apps = world().applications();
    Replications replications = replications();

    replications.createClass(CLASS, "1m");
    world().nodes().cordon(host, true); // the application starts on the joined node
    Pod pod;
    try {
      apps.statefulSet(APP, 1, Names.EXT4_CLASS, "1Gi");
      pod = apps.awaitReady(APP, 1).get(0);
    } finally {
      world().nodes().cordon(host, false);
    }
    assertThat(pod.getSpec().getNodeName()).isEqualTo(other);
    String writer = pod.getMetadata().getName();
    awaitLines(writer, 5);
    sum = pods().sha256(writer, "/data/file");
    String oldHandle = claims().volumeHandle(CLAIM);

    long start = System.nanoTime();
    replications.create(APP, CLASS, CLAIM);
    GenericKubernetesResource first =
        replications.await(
            APP, "its first sync", LIMIT, r -> field(r, "status", "lastSyncTime").isPresent());
    String firstIn = seconds(start);
    assertThat(field(first, "status", "primaryNode")).contains(other);
    assertThat(field(first, "status", "standbyNode")).contains(host);
    assertThat(condition(first, "Replicating")).map(c -> c.get("status")).contains("True");
    assertThat(kube().events("VolumeReplication", Names.APPS, APP))
        .extracting(Event::getReason)
        .contains("StandbyChosen", "Resynced");

    // A sync of what the application wrote since, with room before the next one to write a
    // marker and cut the node off: the marker is written after the last sync, so it is lost.
    Instant asOf = Instant.now();
    long linesBefore = apps.lastLine(writer);
    GenericKubernetesResource synced =
        replications.await(
            APP,
            "a sync begun after " + asOf + " with " + MARGIN.toSeconds() + " s before the next",
            INTERVAL.multipliedBy(3).plus(LIMIT),
            r -> syncedAfter(r, asOf) && roomBeforeNextSync(r));
    String syncPoint = field(synced, "status", "lastSyncTime").orElseThrow().toString();
    String deltaBytes = field(synced, "status", "lastSyncBytes").orElse("?").toString();
    String deltaTook = field(synced, "status", "lastSyncDuration").orElse("?").toString();
    pods().sh(writer, "echo written-after-the-last-sync > /data/marker && sync /data/marker");
    kube().describe("volumereplication", Names.APPS, APP);

    world().remember(FAILED_OVER, other); // from here on the node must be brought back
    world().nodes().powerOff(other);
    // The admin, knowing the machine is off, says so (a non-graceful node shutdown). The taint is
    // set before the node controller has marked the Node NotReady, so Kubernetes' pod garbage
    // collector does not end the dead pod: the failover must.
    long tainted = System.nanoTime();
    world().nodes().outOfService(other, true);
    Event failedOver = kube().awaitEvent("VolumeReplication", Names.APPS, APP, "FailedOver", LIMIT);
    String failedOverIn = seconds(tainted);
    assertThat(failedOver.getType()).isEqualTo("Warning");
    assertThat(failedOver.getMessage()).contains(other).contains(syncPoint);
    Pod moved = awaitReadyOn(host);
    String runningIn = seconds(tainted);

    String name = moved.getMetadata().getName();
    assertThat(pods().sha256(name, "/data/file"))
        .as("the data written before the sync")
        .isEqualTo(sum);
    pods().sh(name, Applications.LOG_WITHOUT_GAP);
    assertThat(lineCount(name))
        .as("the lines logged before the last sync")
        .isGreaterThanOrEqualTo(linesBefore);
    pods().sh(name, "test ! -e /data/marker"); // written after the last sync: lost, as reported
    assertThat(claims().volumeHandle(CLAIM)).as("the claim's volume").isNotEqualTo(oldHandle);
    GenericKubernetesResource after = replications.get(APP);
    assertThat(field(after, "status", "lastFailover", "fromNode")).contains(other);
    assertThat(field(after, "status", "lastFailover", "toNode")).contains(host);
    assertThat(field(after, "status", "lastFailover", "dataLostAfter")).contains(syncPoint);
    String failover = field(after, "status", "lastFailover", "volumeMove").orElseThrow().toString();
    assertThat(kube().events("VolumeMove", Names.APPS, failover))
        .as("the dead pod ended by the failover, not by the pod garbage collector")
        .extracting(Event::getReason)
        .contains("DeletedFencedPods");
    assertThat(field(after, "status", "primaryNode")).contains(host);
    assertThat(condition(after, "Degraded")).map(c -> c.get("status")).contains("True");
    kube().describe("volumereplication", Names.APPS, APP);
    figure(
        "first sync (whole) "
            + field(first, "status", "lastSyncBytes").orElse("?")
            + " B in "
            + field(first, "status", "lastSyncDuration").orElse("?")
            + ", done "
            + firstIn
            + " after the VolumeReplication; a delta sync "
            + deltaBytes
            + " B in "
            + deltaTook
            + "; node stopped and tainted out-of-service: FailedOver "
            + failedOverIn
            + " and pod Ready on "
            + host
            + " "
            + runningIn
            + " after the taint, data of the last sync, the later marker lost as reported");
  }

  @Test
  @Order(2)
  @DisplayName("the lost node back: its stale copy demoted, never mounted, replaced by a replica")
  void nodeBack() {
    String other = world().require(FAILED_OVER);
    Replications replications = replications();
    String stale =
        replications
            .status(APP, "staleCopy", "volumeHandle")
            .orElseThrow(() -> new AssertionError("no staleCopy in the status after the failover"))
            .toString();
    Instant asOf = Instant.now();
    long start = System.nanoTime();
    world().nodes().powerOn(other);
    world().nodes().outOfService(other, false); // the admin's word that it is back in service
    kube().awaitEvent("VolumeReplication", Names.APPS, APP, "StaleCopyDemoted", LIMIT);
    kube().awaitEvent("VolumeReplication", Names.APPS, APP, "StaleCopyDiscarded", LIMIT);
    assertThat(world().nodes().mountsNaming(other, stale)).as("mounts of the stale copy").isEmpty();
    GenericKubernetesResource resynced =
        replications.await(
            APP,
            "a replica on " + other,
            LIMIT,
            r ->
                field(r, "status", "standbyNode").equals(Optional.of(other))
                    && field(r, "status", "replica", "node").equals(Optional.of(other))
                    && syncedAfter(r, asOf));
    String resyncedIn = seconds(start);
    Waits.untilTrue(
        "the stale copy to leave " + other + "'s data dir",
        LIMIT,
        () -> !Files.exists(world().nodes().hostPath(other, Names.image(stale))));
    assertThat(world().nodes().mountsNaming(other, stale)).as("mounts of the stale copy").isEmpty();
    world().remember(NODE_BACK, "true");
    kube().describe("volumereplication", Names.APPS, APP);
    figure(
        "stale copy demoted and discarded, never mounted; new replica on "
            + other
            + " ("
            + field(resynced, "status", "lastSyncBytes").orElse("?")
            + " B) "
            + resyncedIn
            + " after the node was started");
  }

  @Test
  @Order(3)
  @DisplayName("planned switchover back to the first node: nothing lost")
  void switchoverBack() {
    world().require(NODE_BACK);
    String other = world().require(FAILED_OVER);
    String host = world().settings().hostNode();
    Applications apps = world().applications();
    Replications replications = replications();
    String writer = apps.awaitReady(APP, 1).get(0).getMetadata().getName();
    replications.ask(APP, "secondary");
    pods().sh(writer, "echo written-before-the-switchover > /data/kept && sync /data/kept");
    long linesBefore = apps.lastLine(writer);
    long start = System.nanoTime();
    apps.scaleStatefulSet(APP, 0); // the switchover's cut-over waits for the claim to be unused
    apps.awaitGone(APP);
    GenericKubernetesResource switched =
        replications.await(
            APP,
            "state Secondary",
            LIMIT,
            r -> field(r, "status", "state").equals(Optional.of("Secondary")));
    String switchedIn = seconds(start);
    assertThat(field(switched, "status", "primaryNode")).contains(other);
    apps.scaleStatefulSet(APP, 1);
    Pod back = apps.awaitReady(APP, 1).get(0);
    assertThat(back.getSpec().getNodeName()).isEqualTo(other);
    String name = back.getMetadata().getName();
    assertThat(pods().sha256(name, "/data/file")).isEqualTo(sum);
    assertThat(pods().sh(name, "cat /data/kept").trim()).isEqualTo("written-before-the-switchover");
    pods().sh(name, Applications.LOG_WITHOUT_GAP);
    assertThat(lineCount(name)).isGreaterThanOrEqualTo(linesBefore);
    assertThat(kube().events("VolumeReplication", Names.APPS, APP))
        .extracting(Event::getReason)
        .contains("SwitchingOver", "SwitchedOver");

    replications.ask(APP, "primary");
    Instant asOf = Instant.now();
    replications.await(
        APP,
        "state Primary with a replica on " + host,
        LIMIT,
        r ->
            field(r, "status", "state").equals(Optional.of("Primary"))
                && field(r, "status", "standbyNode").equals(Optional.of(host))
                && syncedAfter(r, asOf));
    world().remember(SWITCHED_BACK, "true");
    kube().describe("volumereplication", Names.APPS, APP);
    figure(
        "switchover to "
            + other
            + " done "
            + switchedIn
            + " after the scale-down; file, the last write and the log equal; "
            + host
            + " the standby again");
  }

  @Test
  @Order(4)
  @DisplayName("deleting the VolumeReplication deletes the replica, not the claim")
  void stopReplicating() {
    world().require(SWITCHED_BACK);
    Replications replications = replications();
    String host = world().settings().hostNode();
    String replica = replications.status(APP, "replica", "volumeHandle").orElseThrow().toString();
    assertThat(Names.image(replica)).as("the replica on " + host).exists();
    replications.delete(APP, LIMIT);
    Waits.untilTrue(
        "the replica to leave " + host + "'s data dir",
        LIMIT,
        () -> !Files.exists(Names.image(replica)));
    String name = world().applications().awaitReady(APP, 1).get(0).getMetadata().getName();
    assertThat(pods().sha256(name, "/data/file")).isEqualTo(sum);
    figure("VolumeReplication deleted: replica gone from " + host + ", the claim untouched");
  }

  /** Whatever a failed step left: the node back, the replication, application and claim gone. */
  @AfterAll
  static void tearDown() {
    cleanUp(
        () -> world().recalled(FAILED_OVER).ifPresent(n -> world().nodes().restore(n)),
        () -> replications().delete(APP, LIMIT),
        () -> world().applications().delete(APP),
        () -> CrossNodeTest.deleteClaims(CLAIM),
        () -> replications().deleteClass(CLASS));
  }

  /** The last sync succeeded and began after {@code asOf}. */
  private static boolean syncedAfter(GenericKubernetesResource replication, Instant asOf) {
    Optional<Object> synced = field(replication, "status", "lastSyncTime");
    return synced.isPresent()
        && synced.equals(field(replication, "status", "lastStartTime"))
        && Instant.parse(synced.get().toString()).isAfter(asOf);
  }

  /** The next sync is at least {@link #MARGIN} away (it starts an interval after the last). */
  private static boolean roomBeforeNextSync(GenericKubernetesResource replication) {
    Instant last =
        Instant.parse(field(replication, "status", "lastStartTime").orElseThrow().toString());
    return Instant.now().isBefore(last.plus(INTERVAL).minus(MARGIN));
  }

  private static Pod awaitReadyOn(String node) {
    Supplier<Optional<Pod>> ready =
        () ->
            world().applications().pods(APP).stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .filter(ReplicationTest::ready)
                .findFirst();
    return Waits.until("a Ready pod of " + APP + " on " + node, LIMIT, ready);
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static void awaitLines(String pod, long lines) {
    Waits.untilTrue(
        "pod " + pod + " to log " + lines + " lines",
        LIMIT,
        () -> {
          try {
            return world().applications().lastLine(pod) >= lines;
          } catch (AssertionError | NumberFormatException notYet) {
            return false;
          }
        });
  }

  private static long lineCount(String pod) {
    return Long.parseLong(pods().sh(pod, "wc -l < /data/log").trim());
  }
}
