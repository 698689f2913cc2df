package io.thinvol.driver.core;

import io.thinvol.driver.store.AccessType;

/**
 * Turns a CSI capacity range into an image size. Sizes are rounded up to 4 KiB (the filesystem
 * block size), or to 512 bytes (the loop device sector) when only that fits the limit; an exact
 * request ({@code required == limit}) is honoured exactly or refused, never silently changed.
 */
public final class SizePolicy {

  public static final long KIB = 1024;
  public static final long MIB = 1024 * KIB;
  public static final long GIB = 1024 * MIB;
  public static final long DEFAULT_SIZE = GIB;

  /** Far beyond any node's disk; also keeps size arithmetic clear of overflow. */
  public static final long MAXIMUM_SIZE = 1L << 50;

  private static final long SECTOR = 512;
  private static final long BLOCK = 4 * KIB;

  private SizePolicy() {}

  /** The smallest volume of this kind the driver creates (mkfs.xfs refuses below 300 MiB). */
  public static long minimum(AccessType accessType, String fsType) {
    if (accessType == AccessType.BLOCK) {
      return MIB;
    }
    return "xfs".equals(fsType) ? 300 * MIB : 16 * MIB;
  }

  /**
   * The size for a new or grown volume.
   *
   * @param required the range's required bytes (0 = unspecified)
   * @param limit the range's limit bytes (0 = unspecified)
   * @param floor the size the volume must at least have (its minimum, source or current size)
   * @param maximum the largest volume the driver may create (at most {@link #MAXIMUM_SIZE})
   */
  public static long resolve(long required, long limit, long floor, long maximum) {
    maximum = Math.min(maximum, MAXIMUM_SIZE);
    if (required < 0 || limit < 0) {
      throw CsiException.invalidArgument(
          "capacity_range must not be negative (required_bytes=%d, limit_bytes=%d)",
          required, limit);
    }
    if (limit > 0 && required > limit) {
      throw CsiException.invalidArgument(
          "capacity_range.required_bytes (%d) is larger than limit_bytes (%d)", required, limit);
    }
    long wanted =
        required > 0 ? required : (limit > 0 ? Math.min(DEFAULT_SIZE, limit) : DEFAULT_SIZE);
    wanted = Math.max(wanted, floor);
    if (wanted > maximum) {
      throw CsiException.outOfRange(
          "%d bytes is larger than the largest volume this node can hold (%d bytes)",
          wanted, maximum);
    }
    long size = roundUp(wanted, BLOCK);
    if (limit > 0 && size > limit) {
      size = roundUp(wanted, SECTOR);
    }
    if (limit > 0 && size > limit) {
      throw CsiException.outOfRange(
          "cannot fit a volume of at least %d bytes (a multiple of %d) under limit_bytes %d",
          wanted, SECTOR, limit);
    }
    return Math.min(size, maximum);
  }

  private static long roundUp(long value, long unit) {
    return (value + unit - 1) / unit * unit;
  }
}
