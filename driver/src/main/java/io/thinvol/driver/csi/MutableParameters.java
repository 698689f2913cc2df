package io.thinvol.driver.csi;

import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.host.IoMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The volume parameters that may change during a volume's life: set by a StorageClass or by the
 * {@code mutable_parameters} of CreateVolume (a VolumeAttributesClass), changed by
 * ControllerModifyVolume.
 */
final class MutableParameters {

  static final String IO_MODE = "ioMode";

  /** What a volume gets when neither its StorageClass nor its attributes class names a mode. */
  static final IoMode DEFAULT_IO_MODE = IoMode.DIRECT;

  private MutableParameters() {}

  /**
   * The I/O mode {@code parameters} ask for, if they name one. A value that is not a mode is
   * INVALID_ARGUMENT naming it; {@code field} says where it came from.
   */
  static Optional<IoMode> ioMode(Map<String, String> parameters, String field) {
    String value = parameters.get(IO_MODE);
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(
        IoMode.parse(value)
            .orElseThrow(
                () ->
                    CsiException.invalidArgument(
                        "%s %s=%s is not an I/O mode; use direct or buffered",
                        field, IO_MODE, Requests.shown(value))));
  }

  /**
   * Refuses {@code parameters} with a key that cannot change, naming every such key and why; {@code
   * field} names the request field.
   */
  static void requireOnlyMutable(Map<String, String> parameters, String field) {
    List<String> refused = new ArrayList<>();
    for (String key : new TreeMap<>(parameters).keySet()) {
      if (key.equals(VolumeSpecs.FSTYPE_PARAMETER)) {
        refused.add(key + " (not mutable: the filesystem is made once)");
      } else if (!key.equals(IO_MODE)) {
        refused.add(Requests.shown(key) + " (unknown)");
      }
    }
    if (!refused.isEmpty()) {
      throw CsiException.invalidArgument(
          "%s %s cannot be set; thinvol's only mutable parameter is %s (direct or buffered)",
          field, String.join(", ", refused), IO_MODE);
    }
  }

  /**
   * What a ControllerModifyVolume asks for: only mutable keys; none (an empty map) asks for no
   * change.
   */
  static Optional<IoMode> requested(Map<String, String> parameters) {
    requireOnlyMutable(parameters, "mutable_parameters");
    return ioMode(parameters, "mutable_parameters");
  }
}
