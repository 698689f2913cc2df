package io.thinvol.driver.host;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which filesystems this host can make and grow, known once at start from the programs on PATH. A
 * driver image or node without xfsprogs refuses xfs volumes up front, naming the package, instead
 * of failing a NodeStage with "cannot start mkfs.xfs".
 */
public final class FilesystemTools {

  private record Needs(List<String> programs, String debianPackage) {}

  private static final Map<FsType, Needs> NEEDS =
      Map.of(
          FsType.EXT4, new Needs(List.of("mkfs.ext4", "e2fsck", "resize2fs"), "e2fsprogs"),
          FsType.XFS, new Needs(List.of("mkfs.xfs", "xfs_growfs"), "xfsprogs"));

  private final Map<FsType, List<String>> missing;

  private FilesystemTools(Map<FsType, List<String>> missing) {
    this.missing = missing;
  }

  /** The tools found in the directories of {@code path} (a PATH value). */
  public static FilesystemTools onPath(String path) {
    List<Path> dirs =
        Arrays.stream((path == null ? "" : path).split(File.pathSeparator))
            .filter(dir -> !dir.isEmpty())
            .map(Path::of)
            .toList();
    Map<FsType, List<String>> missing = new EnumMap<>(FsType.class);
    NEEDS.forEach(
        (type, needs) ->
            missing.put(
                type,
                needs.programs().stream()
                    .filter(
                        program ->
                            dirs.stream()
                                .map(dir -> dir.resolve(program))
                                .noneMatch(f -> Files.isRegularFile(f) && Files.isExecutable(f)))
                    .toList()));
    return new FilesystemTools(missing);
  }

  /** The tools on this process's PATH. */
  public static FilesystemTools ofThisProcess() {
    return onPath(System.getenv("PATH"));
  }

  /**
   * Why {@code type} cannot be made here, as a sentence naming the package to install; empty when
   * it can.
   */
  public Optional<String> unavailable(FsType type) {
    List<String> programs = missing.get(type);
    if (programs.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "this node's driver cannot make %s filesystems: %s not found on its PATH (the driver's"
                + " image or host needs the %s package: apt-get install -y %s); use another"
                + " fsType",
            type.id(),
            String.join(", ", programs),
            NEEDS.get(type).debianPackage(),
            NEEDS.get(type).debianPackage()));
  }
}
