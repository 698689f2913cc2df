package io.thinvol.driver.store;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Volume and snapshot ids: generated, fixed format, safe as one path component. Anything that does
 * not match the format names nothing, so a caller's id is never turned into a path.
 */
public final class Ids {

  private static final Pattern VOLUME = Pattern.compile("vol-[0-9a-f]{32}");
  private static final Pattern SNAPSHOT = Pattern.compile("snap-[0-9a-f]{32}");
  private static final Pattern GROUP = Pattern.compile("group-[0-9a-f]{32}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  public static String newVolumeId() {
    return "vol-" + randomHex();
  }

  public static String newSnapshotId() {
    return "snap-" + randomHex();
  }

  public static String newGroupSnapshotId() {
    return "group-" + randomHex();
  }

  public static boolean isGroupSnapshotId(String id) {
    return id != null && GROUP.matcher(id).matches();
  }

  public static boolean isVolumeId(String id) {
    return id != null && VOLUME.matcher(id).matches();
  }

  public static boolean isSnapshotId(String id) {
    return id != null && SNAPSHOT.matcher(id).matches();
  }

  private static String randomHex() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
