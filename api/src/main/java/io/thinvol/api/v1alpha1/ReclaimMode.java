package io.thinvol.api.v1alpha1;

/** Which ReclaimSpace service a job calls. */
public enum ReclaimMode {
  /** NodeReclaimSpace where the volume is staged, else ControllerReclaimSpace. */
  Auto,
  /** Only NodeReclaimSpace; a volume not staged waits and retries. */
  NodeOnly,
  /** Only ControllerReclaimSpace. */
  ControllerOnly
}
