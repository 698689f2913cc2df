package io.thinvol.operator;

import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.thinvol.addons.call.ReclaimCaller;
import java.util.Map;
import java.util.Queue;

/**
 * Where a ReclaimSpaceJob's time goes, for bench/reclaim-job-bench.sh: the moments its creation and
 * its status write reach the API server (the mock's dispatcher) and its driver call starts and ends
 * (the operator's caller), besides the benchmark's own (the create sent, the result seen on the
 * watch). One job at a time.
 */
final class ReclaimJobTrace {

  private static final String JOBS = "/reclaimspacejobs";

  private volatile long createArrived;
  private volatile long callStarted;
  private volatile long callEnded;
  private volatile long statusArrived;

  /** The mock's dispatcher, noting when a job's creation and its status write arrive. */
  KubernetesMixedDispatcher dispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
    return new KubernetesMixedDispatcher(responses) {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        String path = request.getPath();
        if (path.contains(JOBS)) {
          if ("POST".equals(request.getMethod()) && path.endsWith(JOBS)) {
            createArrived = System.nanoTime();
          } else if (path.contains("/status") && statusArrived == 0) {
            statusArrived = System.nanoTime();
          }
        }
        return super.dispatch(request);
      }
    };
  }

  /** {@code caller}, noting when each call starts and ends. */
  ReclaimCaller timed(ReclaimCaller caller) {
    return (endpoint, service, volumeId, timeout) -> {
      callStarted = System.nanoTime();
      return caller
          .call(endpoint, service, volumeId, timeout)
          .whenComplete((usage, error) -> callEnded = System.nanoTime());
    };
  }

  void reset() {
    createArrived = 0;
    callStarted = 0;
    callEnded = 0;
    statusArrived = 0;
  }

  /** The names of {@link #parts}, in their order. */
  static final String[] PARTS = {
    "create request", "to the call", "call", "to the status write", "to the watch"
  };

  /**
   * The job's time in parts, in ms: the create's request, from the API server to the driver call
   * (the informer's watch, the operator's dispatch, resolution, admission), the call (TLS, the
   * driver's trim), from the call's end to its status write at the server (wake-up, dispatch, the
   * write), from the write to the waiting watch.
   */
  double[] parts(long sent, long seen) {
    return new double[] {
      ms(sent, createArrived),
      ms(createArrived, callStarted),
      ms(callStarted, callEnded),
      ms(callEnded, statusArrived),
      ms(statusArrived, seen)
    };
  }

  private static double ms(long from, long to) {
    return (to - from) / 1e6;
  }
}
