package io.thinvol.driver.store;

/** How a volume is consumed: a filesystem mounted in the pod, or a raw block device. */
public enum AccessType {
  MOUNT,
  BLOCK
}
