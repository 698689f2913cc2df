package io.thinvol.driver.core;

import io.thinvol.driver.store.Catalog;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The private directory a volume or snapshot is assembled in before it is published. */
final class Assembling {

  private static final Logger log = LoggerFactory.getLogger(Assembling.class);

  private Assembling() {}

  /** Removes a half-assembled directory and says why the creation failed. */
  static CsiException abandon(Path assembled, String what, Exception cause) {
    remove(assembled);
    return asCsi(what, cause);
  }

  static void remove(Path assembled) {
    try {
      Catalog.removeTree(assembled);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", assembled, e.getMessage());
    }
  }

  static CsiException asCsi(String what, Exception cause) {
    return cause instanceof CsiException csi
        ? csi
        : CsiException.internal("cannot create " + what + ": " + cause.getMessage(), cause);
  }
}
