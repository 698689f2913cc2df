package io.thinvol.driver.metadata;

import static io.thinvol.driver.GrpcAssertions.assertCode;
import static io.thinvol.driver.GrpcAssertions.message;
import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.BlockMetadataType;
import csi.v1.GetMetadataAllocatedRequest;
import csi.v1.GetMetadataAllocatedResponse;
import csi.v1.GetMetadataDeltaRequest;
import csi.v1.SnapshotMetadataGrpc;
import io.grpc.Status;
import io.thinvol.driver.DriverHarness;
import io.thinvol.driver.client.Capabilities;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The rows of the spec's GetMetadataAllocated and GetMetadataDelta error tables. */
class SnapshotMetadataConformanceTest {

  private static final long MIB = 1L << 20;
  private static final long SIZE = 64 * MIB;
  private static final String UNKNOWN = "snap-0123456789abcdef0123456789abcdef";
  private static DriverHarness driver;
  private static SnapshotMetadataGrpc.SnapshotMetadataBlockingStub metadata;
  private static String snapshot;
  private static String otherVolumeSnapshot;

  @BeforeAll
  static void start() throws IOException {
    driver = new DriverHarness();
    metadata = driver.csi().snapshotMetadata();
    String volume = driver.create("source", SIZE, Capabilities.block());
    snapshot = driver.csi().createSnapshot("snap", volume);
    String other = driver.create("other", SIZE, Capabilities.block());
    otherVolumeSnapshot = driver.csi().createSnapshot("other-snap", other);
  }

  @AfterAll
  static void stop() throws IOException {
    driver.close();
  }

  @Test
  @DisplayName(
      "GetMetadataAllocated: 'Missing or otherwise invalid argument' -> 3 INVALID_ARGUMENT")
  void allocatedInvalidArgument() {
    assertCode(Status.Code.INVALID_ARGUMENT, () -> allocated("", 0, 0));
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> allocated(snapshot, -1, 0))))
        .contains("starting_offset");
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> allocated(snapshot, 0, -5))))
        .contains("max_results");
  }

  @Test
  @DisplayName("GetMetadataAllocated: 'Invalid snapshot' -> 5 NOT_FOUND")
  void allocatedNotFound() {
    assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> allocated(UNKNOWN, 0, 0))))
        .contains(UNKNOWN, DriverHarness.NODE);
    assertCode(Status.Code.NOT_FOUND, () -> allocated("../volumes", 0, 0));
  }

  @Test
  @DisplayName("GetMetadataAllocated: 'Invalid starting_offset' -> 11 OUT_OF_RANGE")
  void allocatedOutOfRange() {
    assertThat(message(assertCode(Status.Code.OUT_OF_RANGE, () -> allocated(snapshot, SIZE, 0))))
        .contains(String.valueOf(SIZE));
    assertCode(Status.Code.OUT_OF_RANGE, () -> allocated(snapshot, SIZE + 4096, 0));
  }

  @Test
  @DisplayName("GetMetadataDelta: 'Missing or otherwise invalid argument' -> 3 INVALID_ARGUMENT")
  void deltaInvalidArgument() {
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> delta("", snapshot, 0, 0))))
        .contains("base_snapshot_id");
    assertThat(message(assertCode(Status.Code.INVALID_ARGUMENT, () -> delta(snapshot, "", 0, 0))))
        .contains("target_snapshot_id");
    assertCode(Status.Code.INVALID_ARGUMENT, () -> delta(snapshot, snapshot, -1, 0));
    assertCode(Status.Code.INVALID_ARGUMENT, () -> delta(snapshot, snapshot, 0, -1));
  }

  @Test
  @DisplayName(
      "GetMetadataDelta: a base snapshot of another volume is an 'otherwise invalid argument'"
          + " -> 3 INVALID_ARGUMENT")
  void deltaAcrossVolumes() {
    assertThat(
            message(
                assertCode(
                    Status.Code.INVALID_ARGUMENT,
                    () -> delta(otherVolumeSnapshot, snapshot, 0, 0))))
        .contains("same volume");
  }

  @Test
  @DisplayName("GetMetadataDelta: 'Invalid base_snapshot or target_snapshot' -> 5 NOT_FOUND")
  void deltaNotFound() {
    assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> delta(UNKNOWN, snapshot, 0, 0))))
        .contains("base_snapshot_id");
    assertThat(message(assertCode(Status.Code.NOT_FOUND, () -> delta(snapshot, UNKNOWN, 0, 0))))
        .contains("target_snapshot_id");
  }

  @Test
  @DisplayName("GetMetadataDelta: 'Invalid starting_offset' -> 11 OUT_OF_RANGE")
  void deltaOutOfRange() {
    assertCode(Status.Code.OUT_OF_RANGE, () -> delta(snapshot, snapshot, SIZE, 0));
  }

  @Test
  @DisplayName("A snapshot without data: one response with the type, the capacity and no ranges")
  void emptySnapshot() {
    List<GetMetadataAllocatedResponse> responses = allocated(snapshot, 0, 0);
    assertThat(responses).hasSize(1);
    assertThat(responses.get(0).getBlockMetadataType())
        .isEqualTo(BlockMetadataType.VARIABLE_LENGTH);
    assertThat(responses.get(0).getVolumeCapacityBytes()).isEqualTo(SIZE);
    assertThat(responses.get(0).getBlockMetadataList()).isEmpty();
    assertThat(delta(snapshot, snapshot, 0, 0)).isEqualTo(0);
  }

  private static List<GetMetadataAllocatedResponse> allocated(String id, long start, int max) {
    List<GetMetadataAllocatedResponse> responses = new ArrayList<>();
    metadata
        .getMetadataAllocated(
            GetMetadataAllocatedRequest.newBuilder()
                .setSnapshotId(id)
                .setStartingOffset(start)
                .setMaxResults(max)
                .build())
        .forEachRemaining(responses::add);
    return responses;
  }

  /** The number of ranges the stream lists. */
  private static int delta(String base, String target, long start, int max) {
    int[] ranges = {0};
    metadata
        .getMetadataDelta(
            GetMetadataDeltaRequest.newBuilder()
                .setBaseSnapshotId(base)
                .setTargetSnapshotId(target)
                .setStartingOffset(start)
                .setMaxResults(max)
                .build())
        .forEachRemaining(r -> ranges[0] += r.getBlockMetadataCount());
    return ranges[0];
  }
}
