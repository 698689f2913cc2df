package io.thinvol.driver.store;

/** A replicated volume's role: the one writable copy, or a replica of it. */
public enum ReplicaRole {
  PRIMARY,
  SECONDARY
}
