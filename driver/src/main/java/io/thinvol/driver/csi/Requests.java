package io.thinvol.driver.csi;

import csi.v1.VolumeCapability;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.NodeManager;
import io.thinvol.driver.host.FsType;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.Ids;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Validation of request fields, in the order the spec's error tables imply: a missing or malformed
 * field is INVALID_ARGUMENT; an id that is well-formed for the field but cannot name anything on
 * this node is NOT_FOUND. Ids never become paths unless they match the id format.
 */
final class Requests {

  static final int MAX_STRING_BYTES = 128;
  static final int MAX_PATH_BYTES = 4096;
  private static final int MAX_MOUNT_FLAGS_BYTES = 4096;

  private Requests() {}

  /** A volume id the caller sent; unknown formats are NOT_FOUND. */
  static String volumeId(String id) {
    requirePresent(id, "volume_id");
    if (!Ids.isVolumeId(id)) {
      throw CsiException.notFound("volume %s does not exist", shown(id));
    }
    return id;
  }

  static String snapshotId(String id, String field) {
    requirePresent(id, field);
    if (!Ids.isSnapshotId(id)) {
      throw CsiException.notFound("snapshot %s does not exist", shown(id));
    }
    return id;
  }

  static void requirePresent(String value, String field) {
    if (value == null || value.isEmpty()) {
      throw CsiException.invalidArgument("%s is required", field);
    }
  }

  static void capacityRange(csi.v1.CapacityRange range) {
    if (range.getRequiredBytes() < 0 || range.getLimitBytes() < 0) {
      throw CsiException.invalidArgument(
          "capacity_range must not be negative (required_bytes=%d, limit_bytes=%d)",
          range.getRequiredBytes(), range.getLimitBytes());
    }
  }

  /** A CO-chosen name: at most 128 bytes, none of the control characters the spec bans. */
  static String name(String name, String field) {
    requirePresent(name, field);
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_STRING_BYTES) {
      throw CsiException.invalidArgument("%s is longer than %d bytes", field, MAX_STRING_BYTES);
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= 0x08
          || c == 0x0b
          || c == 0x0c
          || (c >= 0x0e && c <= 0x1f)
          || (c >= 0x7f && c <= 0x9f)) {
        throw CsiException.invalidArgument(
            "%s contains the control character U+%04X", field, (int) c);
      }
    }
    return name;
  }

  /** An absolute, normalised path on the node; never relative, never with . or .. parts. */
  static Path path(String value, String field) {
    requirePresent(value, field);
    if (value.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
      throw CsiException.invalidArgument("%s is longer than %d bytes", field, MAX_PATH_BYTES);
    }
    if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw CsiException.invalidArgument("%s contains a control character", field);
    }
    if (!value.startsWith("/") || value.equals("/")) {
      throw CsiException.invalidArgument(
          "%s must be an absolute path below /, got %s", field, shown(value));
    }
    String trimmed = value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    for (String part : trimmed.substring(1).split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        throw CsiException.invalidArgument(
            "%s must be a normalised path (no empty, '.' or '..' parts), got %s",
            field, shown(value));
      }
    }
    return Path.of(trimmed);
  }

  /**
   * The volume_path of NodeGetVolumeStats and NodeExpandVolume. Their error tables have one row for
   * a path that does not lead to the volume, "Volume does not exist (on the specified
   * volume_path)": NOT_FOUND. A path that is not absolute or normalised cannot hold any volume, so
   * it is that case; only a missing path is INVALID_ARGUMENT.
   */
  static Path volumePath(String value, String volumeId) {
    requirePresent(value, "volume_path");
    try {
      return path(value, "volume_path");
    } catch (CsiException e) {
      throw CsiException.notFound(
          "volume %s is not at that volume_path: %s", shown(volumeId), e.getMessage());
    }
  }

  /** An optional path: empty means absent. */
  static Path optionalPath(String value, String field) {
    return value == null || value.isEmpty() ? null : path(value, field);
  }

  /** How the CO wants to use a volume; only what a node-local volume can honour is accepted. */
  static NodeManager.Usage usage(VolumeCapability capability, String field) {
    if (capability == null || capability.equals(VolumeCapability.getDefaultInstance())) {
      throw CsiException.invalidArgument("%s is required", field);
    }
    VolumeCapability.AccessMode.Mode mode = capability.getAccessMode().getMode();
    accessMode(mode, field);
    boolean readerOnly = mode == VolumeCapability.AccessMode.Mode.SINGLE_NODE_READER_ONLY;
    boolean singleWriter = mode == VolumeCapability.AccessMode.Mode.SINGLE_NODE_SINGLE_WRITER;
    return switch (capability.getAccessTypeCase()) {
      case BLOCK ->
          new NodeManager.Usage(AccessType.BLOCK, null, List.of(), readerOnly, singleWriter);
      case MOUNT -> {
        String fsType = capability.getMount().getFsType();
        if (!fsType.isEmpty() && FsType.parse(fsType).isEmpty()) {
          throw CsiException.invalidArgument(
              "%s.mount.fs_type '%s' is not supported; use ext4 or xfs", field, shown(fsType));
        }
        yield new NodeManager.Usage(
            AccessType.MOUNT, fsType, mountFlags(capability, field), readerOnly, singleWriter);
      }
      case ACCESSTYPE_NOT_SET ->
          throw CsiException.invalidArgument("%s must set an access type (block or mount)", field);
    };
  }

  /** A capability with an access type and mode, whether or not this driver supports them. */
  static void requireWellFormed(VolumeCapability capability) {
    if (capability.getAccessTypeCase() == VolumeCapability.AccessTypeCase.ACCESSTYPE_NOT_SET) {
      throw CsiException.invalidArgument(
          "volume_capabilities must set an access type (block or mount)");
    }
    if (capability.getAccessMode().getMode() == VolumeCapability.AccessMode.Mode.UNKNOWN) {
      throw CsiException.invalidArgument("volume_capabilities.access_mode is required");
    }
  }

  private static void accessMode(VolumeCapability.AccessMode.Mode mode, String field) {
    switch (mode) {
      case SINGLE_NODE_WRITER,
          SINGLE_NODE_READER_ONLY,
          SINGLE_NODE_SINGLE_WRITER,
          SINGLE_NODE_MULTI_WRITER -> {}
      case MULTI_NODE_READER_ONLY, MULTI_NODE_SINGLE_WRITER, MULTI_NODE_MULTI_WRITER ->
          throw CsiException.invalidArgument(
              "%s.access_mode %s needs several nodes, but a thinvol volume lives on one node;"
                  + " use ReadWriteOnce or ReadWriteOncePod",
              field, mode);
      default -> throw CsiException.invalidArgument("%s.access_mode is required", field);
    }
  }

  private static List<String> mountFlags(VolumeCapability capability, String field) {
    List<String> flags = capability.getMount().getMountFlagsList();
    int total = 0;
    for (String flag : flags) {
      total += flag.length();
      if (flag.isEmpty() || flag.chars().anyMatch(c -> c <= ' ' || c == ',' || c == 0x7f)) {
        throw CsiException.invalidArgument(
            "%s.mount.mount_flags holds an empty flag or one with spaces, commas or control"
                + " characters; each flag is one mount option (the value is not shown: mount"
                + " flags may be sensitive)",
            field);
      }
    }
    if (total > MAX_MOUNT_FLAGS_BYTES) {
      throw CsiException.invalidArgument("%s.mount.mount_flags exceed 4 KiB", field);
    }
    return flags;
  }

  /** A caller-supplied value made safe for a message or log: printable and short. */
  static String shown(String value) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < 80; i++) {
      char c = value.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return value.length() > 80
        ? "'" + out + "...' (" + value.length() + " characters)"
        : "'" + out + "'";
  }
}
