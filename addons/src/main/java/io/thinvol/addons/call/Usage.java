package io.thinvol.addons.call;

import java.util.OptionalLong;

/**
 * Bytes the volume used before and after a reclaim, as the driver reported them (either may be
 * missing: the spec makes both optional).
 */
public record Usage(OptionalLong pre, OptionalLong post) {

  public static final Usage UNKNOWN = new Usage(OptionalLong.empty(), OptionalLong.empty());

  public static Usage of(long pre, long post) {
    return new Usage(OptionalLong.of(pre), OptionalLong.of(post));
  }

  /** pre − post, when both are known. */
  public OptionalLong reclaimed() {
    return pre.isPresent() && post.isPresent()
        ? OptionalLong.of(pre.getAsLong() - post.getAsLong())
        : OptionalLong.empty();
  }
}
