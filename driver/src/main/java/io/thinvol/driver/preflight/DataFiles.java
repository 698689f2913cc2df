package io.thinvol.driver.preflight;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Writes random data durably and checksums it, for data-integrity checks. */
public final class DataFiles {

  private static final int CHUNK = 1 << 20;

  private DataFiles() {}

  /** Creates {@code file} with {@code bytes} random bytes, fsynced; returns their sha256. */
  public static String writeRandom(Path file, long bytes) throws IOException {
    return write(
        file,
        bytes,
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }

  /** Writes {@code bytes} random bytes at the start of a block device; returns their sha256. */
  public static String writeRandomToDevice(Path device, long bytes) throws IOException {
    return write(device, bytes, StandardOpenOption.WRITE);
  }

  private static String write(Path path, long bytes, StandardOpenOption... options)
      throws IOException {
    MessageDigest digest = sha256();
    SplittableRandom random = new SplittableRandom(bytes ^ path.hashCode());
    byte[] chunk = new byte[CHUNK];
    try (FileChannel channel = FileChannel.open(path, options)) {
      for (long done = 0; done < bytes; done += CHUNK) {
        int length = (int) Math.min(CHUNK, bytes - done);
        for (int i = 0; i < length; i += 8) {
          long value = random.nextLong();
          for (int b = 0; b < 8 && i + b < length; b++) {
            chunk[i + b] = (byte) (value >>> (8 * b));
          }
        }
        ByteBuffer buffer = ByteBuffer.wrap(chunk, 0, length);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        digest.update(chunk, 0, length);
      }
      channel.force(true);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  public static String sha256(Path file) throws IOException {
    return sha256Prefix(file, Long.MAX_VALUE);
  }

  /** sha256 of the first {@code bytes} bytes of a file or device. */
  public static String sha256Prefix(Path path, long bytes) throws IOException {
    MessageDigest digest = sha256();
    byte[] buffer = new byte[CHUNK];
    long remaining = bytes;
    try (InputStream in = Files.newInputStream(path)) {
      int read;
      while (remaining > 0
          && (read = in.read(buffer, 0, (int) Math.min(buffer.length, remaining))) > 0) {
        digest.update(buffer, 0, read);
        remaining -= read;
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
