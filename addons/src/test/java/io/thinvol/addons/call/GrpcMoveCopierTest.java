package io.thinvol.addons.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.thinvol.addons.call.MoveCopier.CopiedIn;
import io.thinvol.addons.call.MoveCopier.CopyIn;
import io.thinvol.addons.call.MoveCopier.SnapshotOf;
import io.thinvol.addons.call.MoveCopier.Taken;
import io.thinvol.addons.call.MoveCopier.VolumeSpace;
import io.thinvol.peer.v1.CopyInRequest;
import io.thinvol.peer.v1.CopyInResponse;
import io.thinvol.peer.v1.DropSnapshotRequest;
import io.thinvol.peer.v1.DropSnapshotResponse;
import io.thinvol.peer.v1.DropVolumeRequest;
import io.thinvol.peer.v1.DropVolumeResponse;
import io.thinvol.peer.v1.SnapshotRequest;
import io.thinvol.peer.v1.SnapshotResponse;
import io.thinvol.peer.v1.SpaceRequest;
import io.thinvol.peer.v1.SpaceResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's calls of a driver's MoveCopy service, over TLS to a driver's port in this process:
 * what they send (every field, the operator's token, the deadline), what they answer, how a
 * driver's refusal reaches the caller, and that they share the reclaims' connection to a pod.
 */
@EnableKubernetesMockClient(crud = true)
class GrpcMoveCopierTest {

  private static final String NAMESPACE = "thinvol-system";
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  @TempDir Path dir;
  KubernetesClient client;

  private StandInDriver driver;
  private DriverCalls calls;
  private GrpcMoveCopier copier;

  @BeforeEach
  void start() throws Exception {
    driver = new StandInDriver(dir, NAMESPACE);
    calls = new DriverCalls(client, NAMESPACE, () -> "operator-token");
    copier = new GrpcMoveCopier(calls);
  }

  @AfterEach
  void stop() throws Exception {
    calls.close();
    driver.close();
  }

  @Test
  void aCopyInSendsEveryFieldWithTheOperatorsTokenAndAnswersTheDeltaItReceived() throws Exception {
    driver.copied =
        CopyInResponse.newBuilder()
            .setVolumeId("vol-new")
            .setSizeBytes(256L << 20)
            .setBaseSnapshotId("snap-s1")
            .setDeltaBytes(17L << 20)
            .build();

    CopiedIn copied =
        copier
            .copyIn(
                driver.endpoint(),
                new CopyIn(
                    "thinvol-move-uid", "snap-s2", "vol-base", "apps", "thinvol-move-id-cut"),
                TIMEOUT)
            .get(30, TimeUnit.SECONDS);

    assertThat(copied).isEqualTo(new CopiedIn("vol-new", 256L << 20, "snap-s1", 17L << 20));
    StandInDriver.Received call = driver.received().get(0);
    assertThat(call.request())
        .isEqualTo(
            CopyInRequest.newBuilder()
                .setName("thinvol-move-uid")
                .setSnapshotId("snap-s2")
                .setBaseVolumeId("vol-base")
                .setClaimNamespace("apps")
                .setClaimName("thinvol-move-id-cut")
                .build());
    assertThat(call.authorization()).isEqualTo("Bearer operator-token");
    assertThat(call.deadline()).isBetween(TIMEOUT.minusSeconds(30), TIMEOUT);
  }

  @Test
  void aSnapshotIsTakenAndDroppedAndACopyDroppedByName() throws Exception {
    driver.taken =
        SnapshotResponse.newBuilder().setSnapshotId("snap-s2").setSizeBytes(1L << 30).build();
    driver.dropped = DropSnapshotResponse.newBuilder().setDropped(true).build();
    SnapshotOf s2 = new SnapshotOf("thinvol-move-uid-cut", "vol-1");

    Taken taken = copier.snapshot(driver.endpoint(), s2, TIMEOUT).get(30, TimeUnit.SECONDS);
    boolean dropped = copier.dropSnapshot(driver.endpoint(), s2, TIMEOUT).get(30, TimeUnit.SECONDS);

    driver.droppedVolume = DropVolumeResponse.newBuilder().setDropped(true).build();
    boolean droppedCopy =
        copier
            .dropVolume(driver.endpoint(), "thinvol-move-uid", "snap-s2", TIMEOUT)
            .get(30, TimeUnit.SECONDS);

    assertThat(taken).isEqualTo(new Taken("snap-s2", 1L << 30));
    assertThat(dropped).isTrue();
    assertThat(droppedCopy).isTrue();
    assertThat(driver.received())
        .extracting(StandInDriver.Received::request, StandInDriver.Received::authorization)
        .containsExactly(
            tuple(
                SnapshotRequest.newBuilder()
                    .setName("thinvol-move-uid-cut")
                    .setSourceVolumeId("vol-1")
                    .build(),
                "Bearer operator-token"),
            tuple(
                DropSnapshotRequest.newBuilder()
                    .setName("thinvol-move-uid-cut")
                    .setSourceVolumeId("vol-1")
                    .build(),
                "Bearer operator-token"),
            tuple(
                DropVolumeRequest.newBuilder()
                    .setName("thinvol-move-uid")
                    .setSnapshotId("snap-s2")
                    .build(),
                "Bearer operator-token"));
  }

  @Test
  void aVolumesSpaceIsItsSizeAndAllocatedBytesAndAVolumeTheNodeDoesNotHoldIsNotFound()
      throws Exception {
    driver.space =
        SpaceResponse.newBuilder().setSizeBytes(1L << 30).setAllocatedBytes(3L << 20).build();

    VolumeSpace space = copier.space(driver.endpoint(), "vol-1", TIMEOUT).get(30, TimeUnit.SECONDS);

    assertThat(space).isEqualTo(new VolumeSpace(1L << 30, 3L << 20));
    assertThat(driver.received().get(0).request())
        .isEqualTo(SpaceRequest.newBuilder().setVolumeId("vol-1").build());

    driver.failure = Status.NOT_FOUND.withDescription("volume vol-2 does not exist on node node-a");
    assertThat(failureOf(copier.space(driver.endpoint(), "vol-2", TIMEOUT)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getStatus().getDescription()).contains("vol-2");
            });
  }

  @Test
  void aMoveAndAReclaimOfOnePodShareOneConnection() throws Exception {
    GrpcReclaimCaller reclaims = new GrpcReclaimCaller(calls);

    Usage reclaimed =
        reclaims
            .call(driver.endpoint(), ReclaimService.NODE, "vol-1", TIMEOUT)
            .get(30, TimeUnit.SECONDS);
    copier.space(driver.endpoint(), "vol-1", TIMEOUT).get(30, TimeUnit.SECONDS);

    assertThat(driver.received())
        .extracting(StandInDriver.Received::method, StandInDriver.Received::authorization)
        .containsExactly(
            tuple("NodeReclaimSpace", "Bearer operator-token"),
            tuple("Space", "Bearer operator-token"));
    assertThat(reclaimed).isEqualTo(Usage.of(300, 44));
    assertThat(driver.connections()).isEqualTo(1);
  }

  @Test
  void anUnreadableTokenFailsTheCallBeforeItReachesTheDriver() {
    DriverCalls tokenless =
        new DriverCalls(
            client,
            NAMESPACE,
            () -> {
              throw new TokenUnreadable("the operator cannot read its token file", null);
            });
    try {
      Throwable failure =
          failureOf(
              new GrpcMoveCopier(tokenless)
                  .copyIn(driver.endpoint(), new CopyIn("n", "s", "b", "ns", "c"), TIMEOUT));

      assertThat(Status.fromThrowable(failure).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(driver.received()).isEmpty();
    } finally {
      tokenless.close();
    }
  }

  private static Throwable failureOf(CompletableFuture<?> call) {
    Throwable thrown = catchThrowable(() -> call.get(30, TimeUnit.SECONDS));
    assertThat(thrown).isInstanceOf(ExecutionException.class);
    return thrown.getCause();
  }
}
