package io.thinvol.driver.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Mount options split as mount(8) splits them for mount(2): the generic ones become flags, the ones
 * that only mount(8) itself reads are dropped, the rest go to the filesystem as its data.
 *
 * @param flags the MS_* flags
 * @param data the filesystem's options, comma-separated; null when there are none
 */
record MountFlags(long flags, String data) {

  static final long MS_RDONLY = 1;
  static final long MS_NOSUID = 2;
  static final long MS_NODEV = 4;
  static final long MS_NOEXEC = 8;
  static final long MS_SYNCHRONOUS = 16;
  static final long MS_REMOUNT = 32;
  static final long MS_MANDLOCK = 64;
  static final long MS_DIRSYNC = 128;
  static final long MS_NOSYMFOLLOW = 256;
  static final long MS_NOATIME = 1024;
  static final long MS_NODIRATIME = 2048;
  static final long MS_BIND = 4096;
  static final long MS_SILENT = 32768;
  static final long MS_RELATIME = 1 << 21;
  static final long MS_STRICTATIME = 1 << 24;
  static final long MS_LAZYTIME = 1 << 25;

  /** The per-mount flags statfs reports in f_flags (the same bits as MS_*). */
  static final long PER_MOUNT =
      MS_RDONLY
          | MS_NOSUID
          | MS_NODEV
          | MS_NOEXEC
          | MS_NOATIME
          | MS_NODIRATIME
          | MS_RELATIME
          | MS_NOSYMFOLLOW;

  private static final Map<String, Long> SETS =
      Map.ofEntries(
          Map.entry("ro", MS_RDONLY),
          Map.entry("nosuid", MS_NOSUID),
          Map.entry("nodev", MS_NODEV),
          Map.entry("noexec", MS_NOEXEC),
          Map.entry("sync", MS_SYNCHRONOUS),
          Map.entry("mand", MS_MANDLOCK),
          Map.entry("dirsync", MS_DIRSYNC),
          Map.entry("nosymfollow", MS_NOSYMFOLLOW),
          Map.entry("noatime", MS_NOATIME),
          Map.entry("nodiratime", MS_NODIRATIME),
          Map.entry("relatime", MS_RELATIME),
          Map.entry("strictatime", MS_STRICTATIME),
          Map.entry("lazytime", MS_LAZYTIME),
          Map.entry("silent", MS_SILENT));

  private static final Map<String, Long> CLEARS =
      Map.ofEntries(
          Map.entry("rw", MS_RDONLY),
          Map.entry("suid", MS_NOSUID),
          Map.entry("dev", MS_NODEV),
          Map.entry("exec", MS_NOEXEC),
          Map.entry("async", MS_SYNCHRONOUS),
          Map.entry("nomand", MS_MANDLOCK),
          Map.entry("symfollow", MS_NOSYMFOLLOW),
          Map.entry("atime", MS_NOATIME),
          Map.entry("diratime", MS_NODIRATIME),
          Map.entry("norelatime", MS_RELATIME),
          Map.entry("nostrictatime", MS_STRICTATIME),
          Map.entry("nolazytime", MS_LAZYTIME),
          Map.entry("loud", MS_SILENT));

  // Read by mount(8) (fstab, helpers, permissions), never passed to the kernel.
  private static final Set<String> MOUNT8_ONLY =
      Set.of(
          "defaults",
          "auto",
          "noauto",
          "nofail",
          "user",
          "nouser",
          "users",
          "owner",
          "group",
          "_netdev");
  private static final List<String> MOUNT8_ONLY_PREFIXES =
      List.of("x-", "comment=", "uhelper=", "helper=");

  static MountFlags parse(List<String> options) {
    long flags = 0;
    List<String> data = new ArrayList<>();
    for (String option : options) {
      for (String one : option.split(",")) {
        String name = one.strip();
        if (name.isEmpty() || MOUNT8_ONLY.contains(name) || mount8Only(name)) {
          continue;
        }
        if (SETS.containsKey(name)) {
          flags |= SETS.get(name);
        } else if (CLEARS.containsKey(name)) {
          flags &= ~CLEARS.get(name);
        } else {
          data.add(name);
        }
      }
    }
    return new MountFlags(flags, data.isEmpty() ? null : String.join(",", data));
  }

  private static boolean mount8Only(String name) {
    return MOUNT8_ONLY_PREFIXES.stream().anyMatch(name::startsWith);
  }
}
