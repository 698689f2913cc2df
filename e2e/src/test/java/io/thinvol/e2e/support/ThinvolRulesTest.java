package io.thinvol.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How MonitoringTest finds the fill alerts among the operator's rules (no cluster needed). */
class ThinvolRulesTest {

  private static final List<Map<String, Object>> GROUPS =
      List.of(
          Map.of(
              "name",
              "thinvol-e2e",
              "rules",
              List.of(
                  Map.of("record", "x", "expr", "thinvol_data_dir_full"),
                  Map.of("alert", "Full", "expr", "thinvol_data_dir_full == 1", "for", "1m"),
                  Map.of(
                      "alert",
                      "AlmostFull",
                      "expr",
                      "1 - thinvol_data_dir_available_bytes / thinvol_data_dir_size_bytes > 0.9"),
                  Map.of(
                      "alert",
                      "FillsSoon",
                      "expr",
                      "predict_linear(thinvol_data_dir_available_bytes[6h], 86400) < 0",
                      "for",
                      "1h"),
                  Map.of("alert", "NotReady", "expr", "thinvol_ready == 0", "for", "10m"))),
          Map.of("name", "thinvol-operator", "rules", List.of()));

  @Test
  void fillAlertsAreTheAlertsOnTheDataDirsSpaceButNotItsPrediction() {
    assertThat(ThinvolRules.fillAlerts(GROUPS))
        .extracting(ThinvolRules.Alert::name, ThinvolRules.Alert::pendingFor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("Full", Duration.ofMinutes(1)),
            org.assertj.core.groups.Tuple.tuple("AlmostFull", Duration.ZERO));
  }

  @Test
  void alertsLeaveOutRecordingRules() {
    assertThat(ThinvolRules.alerts(GROUPS)).hasSize(4);
  }

  @Test
  void durationsAsPrometheusWritesThem() {
    assertThat(ThinvolRules.duration("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(ThinvolRules.duration("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(ThinvolRules.duration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(ThinvolRules.duration("1w")).isEqualTo(Duration.ofDays(7));
    assertThatThrownBy(() -> ThinvolRules.duration("10 minutes"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ThinvolRules.duration("m10"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
