package io.thinvol.driver.peer;

import java.util.function.Supplier;

/**
 * A value made on its first use: the API client of the peer calls is built on the first call that
 * needs it, so a driver that never calls a peer never pays.
 */
public final class Lazy<T> implements Supplier<T> {
  private final Supplier<T> factory;
  private volatile T value;

  public Lazy(Supplier<T> factory) {
    this.factory = factory;
  }

  @Override
  public T get() {
    T current = value;
    if (current == null) {
      synchronized (this) {
        if (value == null) {
          value = factory.get();
        }
        current = value;
      }
    }
    return current;
  }
}
