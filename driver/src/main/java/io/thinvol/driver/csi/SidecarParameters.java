package io.thinvol.driver.csi;

import io.thinvol.driver.core.CsiException;
import java.util.List;
import java.util.Map;

/**
 * The parameters of a CSI request split into the class's own and the ones Kubernetes' sidecars add.
 * The sidecars reserve the {@code csi.storage.k8s.io/} prefix: they strip the class's prefixed keys
 * they understand and, with {@code --extra-create-metadata}, add the names of the objects behind
 * the call ({@code csi.storage.k8s.io/volumesnapshot/name}, {@code
 * .../volumegroupsnapshot/namespace}, ...). Those are information, never a setting, so they are
 * accepted and ignored; any other key is a typo or a setting thinvol does not have.
 */
final class SidecarParameters {

  static final String PREFIX = "csi.storage.k8s.io/";

  private SidecarParameters() {}

  /** The keys that are neither the sidecars' nor in {@code accepted}, sorted. */
  static List<String> unknown(Map<String, String> given, List<String> accepted) {
    return given.keySet().stream()
        .filter(key -> !key.startsWith(PREFIX))
        .filter(key -> !accepted.contains(key))
        .sorted()
        .toList();
  }

  /** INVALID_ARGUMENT naming the unknown keys, for a class that has no parameters of its own. */
  static void requireOnlySidecars(Map<String, String> given, String className) {
    List<String> unknown = unknown(given, List.of());
    if (!unknown.isEmpty()) {
      throw CsiException.invalidArgument(
          "unknown %s parameters %s; thinvol takes none (only the %s keys the sidecars add)",
          className, unknown, PREFIX);
    }
  }
}
