package io.thinvol.driver.peer;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import csi.v1.VolumeCapability;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.thinvol.driver.client.Capabilities;
import io.thinvol.driver.client.ContentSources;
import io.thinvol.driver.host.FileStats;
import io.thinvol.driver.host.ProcessCommandRunner;
import io.thinvol.driver.peer.copy.RangeDigest;
import io.thinvol.peer.v1.PeerCopyGrpc;
import io.thinvol.peer.v1.PullChunk;
import io.thinvol.peer.v1.PullRequest;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a cross-node copy refuses and how it fails: the TLS port sends a copy only to the drivers'
 * own ServiceAccount and only of the source the claim names; a copy whose sender dies mid-stream or
 * whose digest does not match leaves nothing on the receiving node. Node-b runs a real driver;
 * node-a is a stand-in that misbehaves as each test asks.
 */
@EnableKubernetesMockClient(https = false)
class CrossNodeCopyRefusalTest {

  private static final long MIB = 1L << 20;
  private static final VolumeCapability EXT4 = Capabilities.mount("ext4");

  KubernetesMockServer server;

  @AutoClose private PeerDrivers nodes;
  private NodeVolumes volumes;
  private CopySources sources;
  private StandInPeer nodeA;

  @BeforeEach
  void start() throws Exception {
    nodes = new PeerDrivers(server, List.of("node-b"));
    volumes = new NodeVolumes(nodes, EXT4);
    sources = new CopySources(server);
  }

  @Test
  void aSenderKilledMidStreamIsUnavailableNamingItsNodeAndLeavesNothing() throws Exception {
    String origin = standInFor(StandInPeer.Ending.KILLED_MID_STREAM);
    CompletableFuture<String> clone = CompletableFuture.supplyAsync(() -> cloneOnNodeB(origin));
    nodeA.awaitSentData();
    volumes.awaitCopyBegun("node-b");
    // The same request while the copy is under way waits for it a while, then is told to retry.
    assertThat(message(assertCode(Status.Code.ABORTED, () -> cloneOnNodeB(origin))))
        .contains("'clone'");
    nodeA.kill();

    assertThat(message(assertCode(Status.Code.UNAVAILABLE, () -> join(clone))))
        .contains("node node-a");
    assertThat(volumes.entries("node-b", "volumes")).isEmpty();
  }

  @Test
  void aSenderThatGoesSilentAfterPromisingHeartbeatsIsGivenUpAsUnavailableAndLeavesNothing()
      throws Exception {
    String origin = standInFor(StandInPeer.Ending.SILENT_AFTER_PROMISING_HEARTBEATS);
    long started = System.nanoTime();
    // Its connection stays open: without the watch, the copy would wait for the call's deadline.
    String refused =
        assertTimeoutPreemptively(
            Duration.ofSeconds(90),
            () -> message(assertCode(Status.Code.UNAVAILABLE, () -> cloneOnNodeB(origin))));
    assertThat(refused).contains("node node-a").contains("stalled").contains("heartbeat");
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("six missed heartbeats of a second each, and no more than a few seconds besides")
        .isBetween(Duration.ofSeconds(6), Duration.ofSeconds(60));
    assertThat(volumes.entries("node-b", "volumes")).isEmpty();
  }

  @Test
  void aSenderThatSendsHeartbeatsIsWaitedForLongerThanItsSilenceLimit() throws Exception {
    String origin = standInFor(StandInPeer.Ending.HEARTBEATS_THEN_WRONG_DIGEST);
    // Twelve seconds of heartbeats only, twice the silence it would be given up after: its trailer
    // arrives, and is checked (and found wrong).
    assertThat(message(assertCode(Status.Code.INTERNAL, () -> cloneOnNodeB(origin))))
        .contains("node node-a")
        .contains("digest");
    assertThat(volumes.entries("node-b", "volumes")).isEmpty();
  }

  @Test
  void aCopyThatDoesNotMatchItsDigestLeavesNothing() throws Exception {
    String origin = standInFor(StandInPeer.Ending.WRONG_DIGEST);
    assertThat(message(assertCode(Status.Code.INTERNAL, () -> cloneOnNodeB(origin))))
        .contains("node node-a")
        .contains("digest")
        .contains("nothing was kept");
    assertThat(volumes.entries("node-b", "volumes")).isEmpty();
  }

  @Test
  void thePortSendsACopyToTheDriversAccountOnlyAndOnlyOfTheSourceTheClaimNames() throws Exception {
    String named = nodes.driver("node-b").csi().createVolume("named", 64 * MIB, EXT4, null);
    String other = nodes.driver("node-b").csi().createVolume("other", 64 * MIB, EXT4, null);
    sources.cloneOf("clone", "named", named);
    PullRequest ofNamed = pull(named, "clone");

    assertThat(message(assertCode(Status.Code.UNAUTHENTICATED, () -> read(null, ofNamed))))
        .contains("Bearer");
    assertCode(
        Status.Code.PERMISSION_DENIED,
        () -> read(nodes.tokenOf(PeerDrivers.NAMESPACE + ":intruder"), ofNamed));
    // The operator may reclaim space on this port, never read a volume.
    assertCode(Status.Code.PERMISSION_DENIED, () -> read(nodes.operatorToken(), ofNamed));
    assertThat(
            message(
                assertCode(
                    Status.Code.PERMISSION_DENIED,
                    () -> read(nodes.nodeToken(), pull(other, "clone")))))
        .contains("does not ask for a copy of volume " + other);

    // A puller of an older release, which would check the copy with other digests: retry later.
    assertThat(
            message(
                assertCode(
                    Status.Code.UNAVAILABLE,
                    () ->
                        read(nodes.nodeToken(), ofNamed.toBuilder().clearDigestVersion().build()))))
        .contains("another release");

    List<PullChunk> chunks = read(nodes.nodeToken(), ofNamed);
    assertThat(chunks.get(0).getHeader().getDigestVersion()).isEqualTo(RangeDigest.version());
    assertThat(chunks.get(0).getHeader().getSizeBytes()).isEqualTo(64 * MIB);
    RangeDigest digest = new RangeDigest();
    chunks.stream()
        .filter(PullChunk::hasData)
        .forEach(c -> digest.add(c.getData().getOffset(), c.getData().getData()));
    assertThat(chunks.get(chunks.size() - 1).getTrailer()).isEqualTo(digest.trailer());
    long allocated =
        new FileStats(new ProcessCommandRunner()).allocatedBytes(nodes.image("node-b", named));
    assertThat(digest.bytes()).isLessThanOrEqualTo(allocated);
  }

  /** Node-a's driver pod answers at a stand-in; origin is a volume of node-a. */
  private String standInFor(StandInPeer.Ending ending) throws Exception {
    nodeA = nodes.standIn("node-a", ending);
    String origin = "vol-0123456789abcdef0123456789abcdef";
    nodes.persistentVolumes(Map.of(origin, "node-a"));
    return origin;
  }

  private String cloneOnNodeB(String origin) {
    return volumes.create("node-b", "clone", ContentSources.volumeSource(origin), "clone");
  }

  private List<PullChunk> read(String token, PullRequest request) throws Exception {
    ManagedChannel channel = TlsPort.channel(nodes, "node-b", token);
    try {
      Iterator<PullChunk> stream = PeerCopyGrpc.newBlockingStub(channel).pull(request);
      List<PullChunk> chunks = new java.util.ArrayList<>();
      stream.forEachRemaining(chunks::add);
      return chunks;
    } finally {
      channel.shutdownNow();
    }
  }

  private static PullRequest pull(String volumeId, String claim) {
    return PullRequest.newBuilder()
        .setVolumeId(volumeId)
        .setClaimNamespace(CopySources.NAMESPACE)
        .setClaimName(claim)
        .setDigestVersion(RangeDigest.version())
        .build();
  }

  private static String join(CompletableFuture<String> future) {
    try {
      return future.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }
}
