package io.thinvol.driver.store;

/** Where a volume's initial data came from. */
public record ContentSource(Kind kind, String id) {

  public enum Kind {
    SNAPSHOT,
    VOLUME
  }
}
