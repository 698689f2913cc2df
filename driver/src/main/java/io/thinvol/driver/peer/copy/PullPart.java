package io.thinvol.driver.peer.copy;

import io.thinvol.peer.v1.PullChunk;
import java.nio.ByteBuffer;

/**
 * One part of a pull as the puller takes it ({@link PullPartMarshaller}): a piece of the image, its
 * bytes copied once out of the transport's buffers into a direct buffer of the pull's own, or any
 * other part (header, trailer, digest, heartbeat) as protobuf parses it.
 */
final class PullPart {

  private final PullChunk chunk; // null for a piece
  private final long offset;
  private final long zeroLength;
  private final ByteBuffer bytes; // a piece's, null for a run of zeros
  private final PieceBuffers owner;

  private PullPart(
      PullChunk chunk, long offset, long zeroLength, ByteBuffer bytes, PieceBuffers owner) {
    this.chunk = chunk;
    this.offset = offset;
    this.zeroLength = zeroLength;
    this.bytes = bytes;
    this.owner = owner;
  }

  static PullPart of(PullChunk chunk) {
    return new PullPart(chunk, 0, 0, null, null);
  }

  /** A piece: {@code bytes} (position 0, limit its length) or a run of {@code zeroLength} zeros. */
  static PullPart piece(long offset, long zeroLength, ByteBuffer bytes, PieceBuffers owner) {
    return new PullPart(null, offset, zeroLength, bytes, owner);
  }

  boolean isPiece() {
    return chunk == null;
  }

  /** What a part that is not a piece is. */
  PullChunk.PartCase partCase() {
    return chunk == null ? PullChunk.PartCase.DATA : chunk.getPartCase();
  }

  /** The part that is not a piece, as sent. */
  PullChunk chunk() {
    if (chunk == null) {
      throw new IllegalStateException("a piece of data has no parsed chunk");
    }
    return chunk;
  }

  long offset() {
    return offset;
  }

  /** The length of a run of zeros, 0 for a piece of bytes. */
  long zeroLength() {
    return zeroLength;
  }

  /** The piece's bytes; empty for a run of zeros. Valid until {@link #release()}. */
  ByteBuffer bytes() {
    return bytes == null ? ByteBuffer.allocate(0) : bytes;
  }

  /** The piece's buffer may be used for another piece of the same pull. */
  void release() {
    if (bytes != null) {
      owner.give(bytes);
    }
  }
}
