package io.thinvol.driver.peer.copy;

import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import io.thinvol.peer.v1.ImageDigest;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * A delta whose base snapshot has no valid record: the changed ranges found by comparing the two
 * snapshots (as GetMetadataDelta lists them), the digest of the whole target read meanwhile, on
 * other cores.
 */
final class ComparedDelta implements DeltaParts {

  private final RangeCursor changes;
  private final ContentDigest.Progressive reading;
  private final CompletableFuture<ImageDigest> digest;

  ComparedDelta(RangeCursor changes, ContentDigest.Progressive reading) {
    this.changes = changes;
    this.reading = reading;
    this.digest = reading.finish();
  }

  @Override
  public long capacityBytes() {
    return changes.capacityBytes();
  }

  @Override
  public ByteRange next() throws IOException {
    return changes.next();
  }

  @Override
  public ImageDigest digest() throws IOException {
    return ContentDigest.await(digest);
  }

  @Override
  public void close() throws IOException {
    try {
      reading.abandon(); // the target is closed after: no read of it may still be under way
    } finally {
      changes.close();
    }
  }
}
