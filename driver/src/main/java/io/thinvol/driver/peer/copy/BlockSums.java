package io.thinvol.driver.peer.copy;

import io.thinvol.driver.host.BlockSumsFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The recorded checksums of every 4096-byte block of an image, as its pull computed them, and the
 * image's {@link ImageSeal} when they were recorded: a later delta onto the image takes a block's
 * checksums from here instead of reading it, while the seal holds (docs/decisions.md). The file
 * ({@link BlockSumsFile}), sparse: a 64-byte header (magic, the image's length, the seal, its
 * CRC-32C) in the first page; from the second, each segment's checksums (the CRC-32C and CRC-32 of
 * its slice); then, page-aligned, per {@value ContentDigest#SEGMENT}-byte segment a slice at a
 * fixed place with each block's CRC-32C and CRC-32, 0 and 0 for a block of zeros. Pages of zeros
 * are left holes, so the file takes ~8 bytes per 4 KiB of data, not of the volume. A slice that
 * fails its checksums vouches for nothing; the rest of the file stays usable.
 */
final class BlockSums implements AutoCloseable {

  private static final long MAGIC = 0x5456_5355_4d53_0001L; // "TVSUMS", version 1
  private static final int BLOCK = ZeroBlocks.BLOCK;
  private static final int HEADER = 64;
  private static final int PAGE = 4096;
  private static final long SLICE = ContentDigest.SEGMENT / BLOCK * Checksums.BYTES;

  private final FileChannel channel;
  private final long length;

  private BlockSums(FileChannel channel, long length) {
    this.channel = channel;
    this.length = length;
  }

  /** The recorded bytes of the image: whole blocks. */
  long length() {
    return length;
  }

  /**
   * The record of {@code image} if there is one and the image is provably unwritten since it was
   * made; empty otherwise, with the reason in {@code why}.
   */
  static Optional<BlockSums> open(Path image, StringBuilder why) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(BlockSumsFile.of(image), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      why.append("no record of its blocks (made on this node, or attached since)");
      return Optional.empty();
    }
    ByteBuffer header = ByteBuffer.allocate(HEADER);
    while (header.hasRemaining() && channel.read(header, header.position()) > 0) {}
    header.flip();
    ImageSeal now = ImageSeal.of(image);
    String problem = null;
    if (header.remaining() < HEADER || header.getLong(0) != MAGIC) {
      problem = "the record of its blocks is not one this driver writes";
    } else if (crc(header.duplicate().limit(HEADER - Long.BYTES)) != header.getInt(56)) {
      problem = "the record of its blocks is damaged";
    } else if (!sealOf(header).equals(now) || !now.sealed()) {
      problem = "it was written, or its times changed, since its blocks were recorded";
    }
    if (problem != null) {
      channel.close();
      why.append(problem);
      return Optional.empty();
    }
    return Optional.of(new BlockSums(channel, header.getLong(8)));
  }

  /**
   * The recorded checksums of the segment starting at {@code start} (2 ints per block, 0 and 0 for
   * zeros), or null when its slice fails its own checksums.
   */
  int[] slice(long start) throws IOException {
    int blocks = (int) ((Math.min(length, start + ContentDigest.SEGMENT) - start) / BLOCK);
    long segment = start / ContentDigest.SEGMENT;
    ByteBuffer entries = ByteBuffer.allocate(blocks * Checksums.BYTES);
    ByteBuffer theirs = ByteBuffer.allocate(Checksums.BYTES);
    readFully(entries, entriesAt(segment, length));
    readFully(theirs, PAGE + segment * Checksums.BYTES);
    ByteBuffer ours = ByteBuffer.allocate(Checksums.BYTES);
    new Checksums().put(entries.flip(), ours);
    if (!ours.flip().equals(theirs.flip())) {
      return null;
    }
    int[] sums = new int[2 * blocks];
    entries.asIntBuffer().get(sums);
    return sums;
  }

  /** Reads as much as {@code into} takes; past the file's end a hole (zeros) was left. */
  private void readFully(ByteBuffer into, long at) throws IOException {
    while (into.hasRemaining()) {
      if (channel.read(into, at + into.position()) < 0) {
        into.position(into.limit());
      }
    }
  }

  /** Where the slice of segment {@code segment} of a {@code length}-byte image starts. */
  private static long entriesAt(long segment, long length) {
    long segments = (length + ContentDigest.SEGMENT - 1) / ContentDigest.SEGMENT;
    long table = (PAGE + segments * Checksums.BYTES + PAGE - 1) / PAGE * PAGE;
    return table + segment * SLICE;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private static ImageSeal sealOf(ByteBuffer header) {
    return new ImageSeal(
        header.getLong(16),
        header.getLong(24),
        header.getLong(32),
        header.getLong(40),
        header.getLong(48));
  }

  private static int crc(ByteBuffer bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /**
   * The record of a new image as its segments are computed, in any order and from several threads;
   * published beside the image by {@link #seal} only once the image is complete.
   */
  static final class Writer {

    private final Path temp;
    private final FileChannel channel;
    private final long length;
    private volatile String unusable;

    private Writer(Path temp, FileChannel channel, long length) {
      this.temp = temp;
      this.channel = channel;
      this.length = length;
    }

    /** A record of the {@code length} bytes of {@code image}, being made; null if none can be. */
    static Writer create(Path image, long length) throws IOException {
      if (length % BLOCK != 0) {
        return null; // a partial last block: rare enough to do without
      }
      // One of its own: two pulls of one snapshot may record it at once.
      Path temp = Files.createTempFile(image.getParent(), "." + image.getFileName(), ".sums");
      return new Writer(
          temp, FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE), length);
    }

    /** Records a segment the image's digest computed. */
    void put(SegmentSums segment) throws IOException {
      if (segment.start % ContentDigest.SEGMENT != 0 || segment.end > length) {
        unusable = "a segment out of place";
        return;
      }
      int blocks = segment.data.length;
      ByteBuffer bytes = ByteBuffer.allocate(blocks * Checksums.BYTES);
      for (int block = 0; block < blocks; block++) {
        int castagnoli = segment.data[block] ? segment.sums[2 * block] : 0;
        int ieee = segment.data[block] ? segment.sums[2 * block + 1] : 0;
        if (segment.data[block] && castagnoli == 0 && ieee == 0) {
          unusable = "a block of data whose checksums read as those of zeros"; // 2^-64
        }
        bytes.putInt(castagnoli).putInt(ieee);
      }
      ByteBuffer checksums = ByteBuffer.allocate(Checksums.BYTES);
      new Checksums().put(bytes.flip(), checksums);
      long index = segment.start / ContentDigest.SEGMENT;
      writeFully(checksums.flip(), PAGE + index * Checksums.BYTES);
      long at = entriesAt(index, length);
      for (int page = 0; page < bytes.limit(); page += PAGE) {
        ByteBuffer part = bytes.slice(page, Math.min(PAGE, bytes.limit() - page));
        if (!ZeroBlocks.isZero(part, 0)) { // blocks of zeros only: left a hole
          writeFully(part, at + page);
        }
      }
    }

    private void writeFully(ByteBuffer bytes, long at) throws IOException {
      while (bytes.hasRemaining()) {
        channel.write(bytes, at + bytes.position());
      }
    }

    /**
     * Seals the complete {@code image} and publishes the record beside it, durably; false (and no
     * record) when the record is not of the whole image as it is.
     */
    boolean seal(Path image, StringBuilder why) throws IOException {
      try (FileChannel written = channel) {
        if (unusable != null || Files.size(image) != length) {
          why.append(unusable != null ? unusable : "the image is not the length recorded");
          return false;
        }
        ImageSeal seal = ImageSeal.take(image);
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        header.putLong(MAGIC).putLong(length);
        header
            .putLong(seal.device())
            .putLong(seal.inode())
            .putLong(seal.size())
            .putLong(seal.modifiedNanos())
            .putLong(seal.changedNanos());
        header.putInt(crc(header.duplicate().flip())).putInt(0).flip();
        writeFully(header, 0);
        written.force(true);
      }
      Files.move(
          temp,
          BlockSumsFile.of(image),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel directory = FileChannel.open(image.getParent(), StandardOpenOption.READ)) {
        directory.force(true);
      }
      return true;
    }

    /** No record: the image failed, or was not complete. */
    void discard() {
      try {
        channel.close();
        Files.deleteIfExists(temp);
      } catch (IOException e) {
        // the private directory it lies in goes with the failed copy
      }
    }
  }
}
