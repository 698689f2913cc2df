package io.thinvol.driver.core.metadata;

/** A run of a volume's bytes: {@code [offset, offset + length)}. */
public record ByteRange(long offset, long length) {

  public long end() {
    return offset + length;
  }
}
