package io.thinvol.operator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system's time moved forward by what a test says: the operator under test reads a deadline as
 * passed without the test waiting for it, while its polls and the API server run in real time.
 */
final class ShiftedClock extends Clock {

  private volatile Duration shift = Duration.ZERO;

  void advance(Duration by) {
    shift = shift.plus(by);
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(shift);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
