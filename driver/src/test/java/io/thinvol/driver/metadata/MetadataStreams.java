package io.thinvol.driver.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.BlockMetadata;
import csi.v1.BlockMetadataType;
import csi.v1.GetMetadataAllocatedRequest;
import csi.v1.GetMetadataAllocatedResponse;
import csi.v1.GetMetadataDeltaRequest;
import csi.v1.GetMetadataDeltaResponse;
import io.thinvol.driver.client.CsiClient;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls the SnapshotMetadata service and checks what every response of a stream must hold: the same
 * type and capacity, at most max_results ranges, ranges ascending and never overlapping.
 */
final class MetadataStreams {

  private final CsiClient client;
  private final long capacity;
  int responses;

  MetadataStreams(CsiClient client, long capacity) {
    this.client = client;
    this.capacity = capacity;
  }

  Ranges allocated(String snapshot, long start, int maxResults) {
    List<BlockMetadata> all = new ArrayList<>();
    client
        .snapshotMetadata()
        .getMetadataAllocated(
            GetMetadataAllocatedRequest.newBuilder()
                .setSnapshotId(snapshot)
                .setStartingOffset(start)
                .setMaxResults(maxResults)
                .build())
        .forEachRemaining(
            (GetMetadataAllocatedResponse r) ->
                page(
                    r.getBlockMetadataType(),
                    r.getVolumeCapacityBytes(),
                    r.getBlockMetadataList(),
                    maxResults,
                    all));
    return checked(all, start);
  }

  Ranges delta(String base, String target, long start, int maxResults) {
    List<BlockMetadata> all = new ArrayList<>();
    client
        .snapshotMetadata()
        .getMetadataDelta(
            GetMetadataDeltaRequest.newBuilder()
                .setBaseSnapshotId(base)
                .setTargetSnapshotId(target)
                .setStartingOffset(start)
                .setMaxResults(maxResults)
                .build())
        .forEachRemaining(
            (GetMetadataDeltaResponse r) ->
                page(
                    r.getBlockMetadataType(),
                    r.getVolumeCapacityBytes(),
                    r.getBlockMetadataList(),
                    maxResults,
                    all));
    return checked(all, start);
  }

  private void page(
      BlockMetadataType type,
      long volumeCapacity,
      List<BlockMetadata> ranges,
      int maxResults,
      List<BlockMetadata> all) {
    responses++;
    assertThat(type).isEqualTo(BlockMetadataType.VARIABLE_LENGTH);
    assertThat(volumeCapacity).as("volume_capacity_bytes in every response").isEqualTo(capacity);
    if (maxResults > 0) {
      assertThat(ranges)
          .as("at most max_results per response")
          .hasSizeLessThanOrEqualTo(maxResults);
    }
    all.addAll(ranges);
  }

  private Ranges checked(List<BlockMetadata> all, long start) {
    for (int i = 0; i < all.size(); i++) {
      BlockMetadata range = all.get(i);
      assertThat(range.getSizeBytes()).as("size_bytes > 0").isPositive();
      assertThat(range.getByteOffset() + range.getSizeBytes()).isLessThanOrEqualTo(capacity);
      if (i == 0) {
        assertThat(range.getByteOffset() + range.getSizeBytes())
            .as("nothing ends before starting_offset")
            .isGreaterThan(start);
      } else {
        BlockMetadata previous = all.get(i - 1);
        assertThat(previous.getByteOffset() + previous.getSizeBytes())
            .as("ascending, never overlapping")
            .isLessThanOrEqualTo(range.getByteOffset());
      }
    }
    return Ranges.of(all);
  }
}
