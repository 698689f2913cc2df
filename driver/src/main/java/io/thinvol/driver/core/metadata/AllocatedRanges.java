package io.thinvol.driver.core.metadata;

import io.thinvol.driver.host.ImageExtents;
import java.io.IOException;

/**
 * The data ranges of one image, as its filesystem keeps them (SEEK_DATA/SEEK_HOLE), up to {@code
 * capacity}. Closing it closes the image.
 */
public final class AllocatedRanges implements RangeCursor {

  private final ImageExtents image;
  private final long capacity;
  private long position;

  public AllocatedRanges(ImageExtents image, long capacity, long start) {
    this.image = image;
    this.capacity = capacity;
    this.position = start;
  }

  @Override
  public long capacityBytes() {
    return capacity;
  }

  @Override
  public ByteRange next() throws IOException {
    long data = image.nextData(position);
    if (data < 0 || data >= capacity) {
      position = capacity;
      return null;
    }
    long hole = Math.min(image.nextHole(data), capacity);
    position = hole;
    return new ByteRange(data, hole - data);
  }

  @Override
  public void close() throws IOException {
    image.close();
  }
}
