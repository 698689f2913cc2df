package io.thinvol.driver.csi;

import csi.v1.BlockMetadata;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.core.metadata.ByteRange;
import io.thinvol.driver.core.metadata.RangeCursor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Streams a {@link RangeCursor} as pages of BlockMetadata at the client's pace: a page is built
 * only when the transport can take it (gRPC's onReady), so a slow client holds back the reading of
 * the images instead of filling the driver's memory. A client that goes away stops the walk.
 *
 * @param <T> the response message
 */
final class RangeStream<T> {

  /** Builds one response: the spec wants the type and capacity repeated in every page. */
  interface Page<T> {
    T build(long capacityBytes, List<BlockMetadata> ranges);
  }

  private static final Logger log = LoggerFactory.getLogger(RangeStream.class);
  // Ranges per response when the client leaves it to the plugin, and the most ever sent in one:
  // ~20 bytes each on the wire, so a page stays far below gRPC's 4 MiB message limit.
  static final int DEFAULT_PAGE = 1024;
  static final int MAX_PAGE = 16_384;

  private final String method;
  private final String subject;
  private final ServerCallStreamObserver<T> call;
  private final RangeCursor cursor;
  private final long requestedOffset;
  private final int pageSize;
  private final Page<T> page;
  private final long started = System.nanoTime();
  private boolean sentAny;
  private boolean finished;
  private long ranges;
  private long bytes;

  private RangeStream(
      String method,
      String subject,
      ServerCallStreamObserver<T> call,
      RangeCursor cursor,
      long requestedOffset,
      int maxResults,
      Page<T> page) {
    this.method = method;
    this.subject = subject;
    this.call = call;
    this.cursor = cursor;
    this.requestedOffset = requestedOffset;
    this.pageSize = maxResults == 0 ? DEFAULT_PAGE : Math.min(maxResults, MAX_PAGE);
    this.page = page;
  }

  /**
   * Validates and opens the walk on the calling thread (so bad input fails at once), then streams
   * it from gRPC's readiness callbacks.
   */
  static <T> void serve(
      String method,
      String subject,
      StreamObserver<T> observer,
      long requestedOffset,
      int maxResults,
      Supplier<RangeCursor> open,
      Page<T> page) {
    ServerCallStreamObserver<T> call = (ServerCallStreamObserver<T>) observer;
    RangeCursor cursor;
    try (Scope scope = new Scope(method, subject)) {
      if (requestedOffset < 0) {
        throw CsiException.invalidArgument(
            "starting_offset %d is negative; it is a byte offset from the volume's start",
            requestedOffset);
      }
      if (maxResults < 0) {
        throw CsiException.invalidArgument(
            "max_results %d is negative; give 0 to let the plugin choose", maxResults);
      }
      cursor = open.get();
    } catch (RuntimeException e) {
      try (Scope scope = new Scope(method, subject)) {
        Rpc.fail(observer, e);
      }
      return;
    }
    RangeStream<T> stream =
        new RangeStream<>(method, subject, call, cursor, requestedOffset, maxResults, page);
    call.setOnCancelHandler(stream::cancelled);
    call.setOnReadyHandler(stream::pump);
  }

  private void pump() {
    if (finished) {
      return;
    }
    try (Scope scope = new Scope(method, subject)) {
      while (!finished && call.isReady()) {
        List<BlockMetadata> next = nextPage();
        if (!next.isEmpty() || !sentAny) {
          call.onNext(page.build(cursor.capacityBytes(), next));
          sentAny = true;
        }
        if (next.size() < pageSize) {
          finish();
          call.onCompleted();
          log.debug(
              "streamed {} ranges, {} bytes in {} ms",
              ranges,
              bytes,
              (System.nanoTime() - started) / 1_000_000);
        }
      }
    } catch (IOException e) {
      finish();
      Rpc.fail(call, CsiException.internal("cannot read a snapshot image: " + e.getMessage(), e));
    } catch (RuntimeException e) {
      finish();
      Rpc.fail(call, e);
    }
  }

  /** Up to a page of ranges; fewer only at the end of the walk. */
  private List<BlockMetadata> nextPage() throws IOException {
    List<BlockMetadata> next = new ArrayList<>();
    while (next.size() < pageSize) {
      ByteRange range = cursor.next();
      if (range == null) {
        break;
      }
      if (range.end() <= requestedOffset) {
        continue; // the spec: nothing that ends before starting_offset
      }
      next.add(
          BlockMetadata.newBuilder()
              .setByteOffset(range.offset())
              .setSizeBytes(range.length())
              .build());
      ranges++;
      bytes += range.length();
    }
    return next;
  }

  private void cancelled() {
    try (Scope scope = new Scope(method, subject)) {
      log.info("the client went away after {} ranges; stopped reading", ranges);
      finish();
    }
  }

  private void finish() {
    if (!finished) {
      finished = true;
      try {
        cursor.close();
      } catch (IOException e) {
        log.warn("cannot close the snapshot images: {}", e.getMessage());
      }
    }
  }

  /** The MDC keys of the call, for every line logged on its behalf. */
  private static final class Scope implements AutoCloseable {
    Scope(String method, String subject) {
      MDC.put(Rpc.MDC_RPC, method);
      MDC.put(Rpc.MDC_VOLUME, Requests.shown(subject));
    }

    @Override
    public void close() {
      MDC.remove(Rpc.MDC_RPC);
      MDC.remove(Rpc.MDC_VOLUME);
    }
  }
}
