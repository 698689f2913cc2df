package io.thinvol.driver.core;

import io.thinvol.driver.host.FilesystemTools;
import io.thinvol.driver.host.FsType;
import io.thinvol.driver.store.AccessType;
import io.thinvol.driver.store.VolumeRecord;
import java.util.Objects;

/** Whether a CreateVolume request fits what exists already: its name's volume, its source. */
final class VolumeSpecChecks {

  private VolumeSpecChecks() {}

  /**
   * The existing volume of the requested name, if it matches the request (the spec's idempotency);
   * ALREADY_EXISTS otherwise.
   */
  static VolumeRecord requireCompatible(VolumeRecord existing, VolumeSpec spec) {
    String conflict = null;
    if (existing.accessType() != spec.accessType()) {
      conflict = "access type " + existing.accessType();
    } else if (!Objects.equals(existing.fsType(), spec.fsType())) {
      conflict = "filesystem " + existing.fsType();
    } else if (!Objects.equals(existing.contentSource(), spec.source())) {
      conflict = "content source " + existing.contentSource();
    } else if (spec.requiredBytes() > 0 && existing.sizeBytes() < spec.requiredBytes()
        || spec.limitBytes() > 0 && existing.sizeBytes() > spec.limitBytes()) {
      conflict = "size " + existing.sizeBytes() + " bytes";
    }
    if (conflict != null) {
      throw CsiException.alreadyExists(
          "volume '%s' already exists as %s with %s, which this request does not match",
          spec.name(), existing.id(), conflict);
    }
    return existing;
  }

  /**
   * This node can make and grow the filesystem the request asks for; the CreateVolume row "volume
   * capabilities not supported" is INVALID_ARGUMENT.
   */
  static void requireMakeable(VolumeSpec spec, FilesystemTools tools) {
    if (spec.accessType() == AccessType.MOUNT) {
      FsType.parse(spec.fsType())
          .flatMap(tools::unavailable)
          .ifPresent(
              why -> {
                throw CsiException.invalidArgument("%s", why);
              });
    }
  }

  /** A volume of {@code spec} can hold the content of a source of this type and filesystem. */
  static void requireRestorable(
      VolumeSpec spec, AccessType sourceType, String sourceFs, String what) {
    if (spec.accessType() == AccessType.MOUNT && sourceType == AccessType.BLOCK) {
      throw CsiException.invalidArgument(
          "%s is a block volume; it can only be restored as a block volume", what);
    }
    if (spec.accessType() == AccessType.MOUNT && !Objects.equals(spec.fsType(), sourceFs)) {
      throw CsiException.invalidArgument(
          "%s holds an %s filesystem; cannot provide it as %s", what, sourceFs, spec.fsType());
    }
  }
}
