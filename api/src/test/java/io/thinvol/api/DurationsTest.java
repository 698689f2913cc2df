package io.thinvol.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void wholeUnitsReadAsKubernetesWritesThem() {
    assertThat(Durations.text(Duration.ofSeconds(5))).isEqualTo("5s");
    assertThat(Durations.text(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(Durations.text(Duration.ofMinutes(90))).isEqualTo("1h30m");
    assertThat(Durations.text(Duration.ofHours(48))).isEqualTo("48h");
    assertThat(Durations.text(Duration.ofSeconds(3723))).isEqualTo("1h2m3s");
  }

  @Test
  void zeroFractionsAndNegativesStayReadable() {
    assertThat(Durations.text(Duration.ZERO)).isEqualTo("0s");
    assertThat(Durations.text(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Durations.text(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(Durations.text(Duration.ofMillis(60_050))).isEqualTo("1m0.05s");
    assertThat(Durations.text(Duration.ofSeconds(-5))).isEqualTo("-5s");
  }
}
