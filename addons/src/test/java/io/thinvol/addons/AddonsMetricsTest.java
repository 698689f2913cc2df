package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.thinvol.addons.call.ReclaimLimits;
import org.junit.jupiter.api.Test;

/** The per-PVC series the "reclaims keep failing" alert reads (docs/monitoring.md). */
class AddonsMetricsTest {

  private static final String DATA = "{namespace=\"apps\",persistentvolumeclaim=\"data\"}";
  private static final String LOGS = "{namespace=\"apps\",persistentvolumeclaim=\"logs\"}";

  private final AddonsMetrics metrics = new AddonsMetrics(new ReclaimLimits());

  @Test
  void consecutiveFailuresCountSinceTheLastSuccessPerClaim() {
    metrics.finished("apps", "data", "Failed", "NodeUnreachable", 0, 100);
    metrics.finished("apps", "data", "Failed", "NodeUnreachable", 0, 200);
    metrics.finished("apps", "logs", "Succeeded", "", 4096, 250);
    metrics.finished("apps", "data", "Failed", "DeadlineExceeded", 0, 300);

    assertThat(metrics.render())
        .contains("thinvol_reclaimspace_consecutive_failures" + DATA + " 3\n")
        .contains("thinvol_reclaimspace_consecutive_failures" + LOGS + " 0\n")
        .contains("thinvol_reclaimspace_last_completion_timestamp_seconds" + DATA + " 300\n")
        .contains("# TYPE thinvol_reclaimspace_consecutive_failures gauge\n");

    metrics.finished("apps", "data", "Succeeded", "", 1024, 400);
    metrics.finished("apps", "logs", "Failed", "NodeUnreachable", 0, 410);
    assertThat(metrics.render())
        .contains("thinvol_reclaimspace_consecutive_failures" + DATA + " 0\n")
        .contains("thinvol_reclaimspace_consecutive_failures" + LOGS + " 1\n")
        .contains("thinvol_reclaimspace_last_result" + DATA + " 1\n");
  }
}
