package io.thinvol.driver.cli;

/**
 * The driver (same arguments as {@code thinvol driver ...}) whose full image copies wait at a gate
 * that never opens, so a test can kill it in the middle of a copy. It creates {@code
 * <data-dir>/../copy-held} once a copy has reached the gate.
 */
public final class HeldCopyDriver {

  private HeldCopyDriver() {}

  public static void main(String[] args) throws Exception {
    HeldCallDriver.run("cp --sparse=always", "copy-held", args);
  }
}
