package io.thinvol.driver.peer.copy;

import com.google.protobuf.ByteString;
import io.grpc.HasByteBuffer;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.thinvol.peer.v1.DataRange;
import io.thinvol.peer.v1.PullChunk;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;

/**
 * Reads a pull's parts on the puller's side. A piece of data ({@code PullChunk.data}, a {@code
 * DataRange}) is read field by field and its bytes copied once, straight out of the transport's
 * buffers into a direct buffer of the pull ({@link PieceBuffers}), from which they are checksummed
 * and written: protobuf's own parse copied them twice more, into an array and then into a new
 * {@code ByteString}, and the puller once more into a direct buffer for the write. Every other part
 * is parsed by protobuf. The wire format is protobuf's, so the sender needs nothing of this.
 */
final class PullPartMarshaller implements MethodDescriptor.Marshaller<PullPart> {

  private static final int DATA = 2; // PullChunk.data
  private static final int OFFSET = 1; // DataRange.offset
  private static final int BYTES = 2; // DataRange.data
  private static final int ZERO_LENGTH = 3; // DataRange.zero_length
  private static final int VARINT = 0;
  private static final int FIXED64 = 1;
  private static final int DELIMITED = 2;
  private static final int FIXED32 = 5;

  private final PieceBuffers buffers = new PieceBuffers();

  @Override
  public InputStream stream(PullPart part) {
    PullChunk chunk;
    if (part.isPiece()) {
      DataRange.Builder data =
          DataRange.newBuilder().setOffset(part.offset()).setZeroLength(part.zeroLength());
      data.setData(ByteString.copyFrom(part.bytes().duplicate()));
      chunk = PullChunk.newBuilder().setData(data).build();
    } else {
      chunk = part.chunk();
    }
    return new ByteArrayInputStream(chunk.toByteArray());
  }

  @Override
  public PullPart parse(InputStream stream) {
    try {
      Reader in = new Reader(stream);
      int first = stream.read();
      if (first != (DATA << 3 | DELIMITED)) {
        return PullPart.of(parseWhole(first, stream));
      }
      in.position = 1;
      long end = in.varint();
      end += in.position;
      long offset = 0;
      long zeroLength = 0;
      ByteBuffer bytes = null;
      while (in.position < end) {
        long key = in.varint();
        int field = (int) (key >>> 3);
        int wire = (int) (key & 7);
        if (field == OFFSET && wire == VARINT) {
          offset = in.varint();
        } else if (field == ZERO_LENGTH && wire == VARINT) {
          zeroLength = in.varint();
        } else if (field == BYTES && wire == DELIMITED) {
          long length = in.varint();
          if (length < 0 || in.position + length > end) {
            throw malformed("a piece longer than its part");
          }
          if (bytes != null) {
            buffers.give(bytes);
          }
          bytes = buffers.take((int) length);
          in.copy(bytes);
          bytes.flip();
        } else {
          in.skip(wire);
        }
      }
      if (in.position != end || stream.read() != -1) {
        throw malformed("a piece of data with more after it");
      }
      return PullPart.piece(offset, zeroLength, bytes, buffers);
    } catch (IOException e) {
      throw malformed(e.toString());
    }
  }

  /** A part that is not a piece, its first byte already read ({@code -1}: an empty part). */
  private static PullChunk parseWhole(int first, InputStream rest) throws IOException {
    if (first < 0) {
      return PullChunk.getDefaultInstance();
    }
    return PullChunk.parseFrom(
        new SequenceInputStream(new ByteArrayInputStream(new byte[] {(byte) first}), rest));
  }

  private static RuntimeException malformed(String what) {
    return Status.INTERNAL
        .withDescription("a part of the copy could not be read: " + what)
        .asRuntimeException();
  }

  /** Protobuf's wire format, read byte by byte but for a piece's bytes; counts what it read. */
  private static final class Reader {

    private final InputStream in;
    long position;

    Reader(InputStream in) {
      this.in = in;
    }

    long varint() throws IOException {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = in.read();
        if (b < 0) {
          throw new EOFException("inside a varint");
        }
        position++;
        value |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
      throw new IOException("a varint longer than 10 bytes");
    }

    /** Fills {@code into}: from the transport's buffers in place where it lends them. */
    void copy(ByteBuffer into) throws IOException {
      if (in instanceof HasByteBuffer lending && lending.byteBufferSupported()) {
        while (into.hasRemaining()) {
          ByteBuffer lent = lending.getByteBuffer();
          if (lent == null) {
            throw new EOFException("inside a piece");
          }
          int length = Math.min(lent.remaining(), into.remaining());
          into.put(lent.limit(lent.position() + length));
          skipFully(length);
        }
      } else {
        byte[] scratch = new byte[Math.min(into.remaining(), 64 << 10)];
        while (into.hasRemaining()) {
          int read = in.read(scratch, 0, Math.min(scratch.length, into.remaining()));
          if (read < 0) {
            throw new EOFException("inside a piece");
          }
          into.put(scratch, 0, read);
          position += read;
        }
      }
    }

    /** Skips a field of another kind than the ones read. */
    void skip(int wire) throws IOException {
      switch (wire) {
        case VARINT -> varint();
        case FIXED64 -> skipFully(8);
        case FIXED32 -> skipFully(4);
        case DELIMITED -> skipFully(varint());
        default -> throw new IOException("wire type " + wire);
      }
    }

    private void skipFully(long length) throws IOException {
      long left = length;
      while (left > 0) {
        long skipped = in.skip(left);
        if (skipped <= 0) {
          if (in.read() < 0) {
            throw new EOFException("inside a field");
          }
          skipped = 1;
        }
        left -= skipped;
      }
      position += length;
    }
  }
}
