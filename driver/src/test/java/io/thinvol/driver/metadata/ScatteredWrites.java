package io.thinvol.driver.metadata;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes 4 KiB blocks of random data at random places of a block device and remembers what went
 * where, so the ranges the driver reports can be checked against what was really written.
 */
final class ScatteredWrites {

  static final int BLOCK = 4096;

  private final Random random;
  private final long blocks;
  private final Map<Long, byte[]> written = new TreeMap<>();

  ScatteredWrites(long seed, long deviceBytes) {
    this.random = new Random(seed);
    this.blocks = deviceBytes / BLOCK;
  }

  /** {@code count} blocks of fresh random data at random blocks; returns the blocks written. */
  TreeSet<Long> writeRandom(Path device, int count) throws IOException {
    TreeSet<Long> changed = new TreeSet<>();
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
      for (int i = 0; i < count; i++) {
        long block = Math.floorMod(random.nextLong(), blocks);
        byte[] data = new byte[BLOCK];
        random.nextBytes(data);
        write(channel, block, data);
        changed.add(block);
      }
      channel.force(true);
    }
    return changed;
  }

  /** Writes {@code count} of the {@code candidates} again with the bytes they already hold. */
  List<Long> rewriteSame(Path device, int count, Set<Long> candidates) throws IOException {
    List<Long> all = new ArrayList<>(candidates);
    List<Long> rewritten = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
      for (int i = 0; i < count; i++) {
        long block = all.get(random.nextInt(all.size()));
        write(channel, block, written.get(block));
        rewritten.add(block);
      }
      channel.force(true);
    }
    return rewritten;
  }

  /** Every block written so far. */
  TreeSet<Long> blocks() {
    return new TreeSet<>(written.keySet());
  }

  long bytes() {
    return (long) written.size() * BLOCK;
  }

  private void write(FileChannel channel, long block, byte[] data) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(data);
    while (buffer.hasRemaining()) {
      channel.write(buffer, block * BLOCK + buffer.position());
    }
    written.put(block, data);
  }
}
