package io.thinvol.addons.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thinvol.api.v1alpha1.ReclaimSpaceSpec;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Schedules as CSI-Addons' parser (robfig/cron) reads them, so that the migration of
 * docs/compatibility.md works for every schedule upstream accepts; the CRD's pattern lets the same
 * ones through.
 */
class CronScheduleTest {

  private static final Pattern CRD = Pattern.compile(ReclaimSpaceSpec.SCHEDULE_PATTERN);

  /** The examples of docs/compatibility.md. */
  private static final List<String> MIGRATED =
      List.of(
          "@weekly",
          "0 3 * * *",
          "@every 1h30m",
          "CRON_TZ=Europe/Paris 0 3 * * 0",
          "TZ=UTC @daily");

  @Test
  void everyScheduleTheMigrationDocumentsParsesAndPassesTheCrd() {
    for (String schedule : MIGRATED) {
      assertThat(CRD.matcher(schedule).matches()).as("CRD pattern: %s", schedule).isTrue();
      assertThat(CronSchedule.parse(schedule).next(Instant.EPOCH)).as(schedule).isPresent();
    }
  }

  @Test
  void cronTzRunsAtTheZonesLocalTime() {
    CronSchedule paris = CronSchedule.parse("CRON_TZ=Europe/Paris 0 3 * * *");
    // 03:00 in Paris in winter is 02:00 UTC, in summer 01:00 UTC.
    assertThat(paris.next(Instant.parse("2026-01-10T12:00:00Z")))
        .contains(Instant.parse("2026-01-11T02:00:00Z"));
    assertThat(paris.next(Instant.parse("2026-07-10T12:00:00Z")))
        .contains(Instant.parse("2026-07-11T01:00:00Z"));
    assertThat(paris.last(Instant.parse("2026-01-11T02:00:00Z")))
        .contains(Instant.parse("2026-01-11T02:00:00Z"));
  }

  @Test
  void everyRunsOnMultiplesOfItsDurationSinceTheEpoch() {
    CronSchedule every = CronSchedule.parse("@every 1h30m");
    assertThat(every.next(Instant.parse("2026-01-01T00:10:00Z")))
        .contains(Instant.parse("2026-01-01T01:30:00Z"));
    assertThat(every.next(Instant.parse("2026-01-01T01:30:00Z")))
        .as("strictly after")
        .contains(Instant.parse("2026-01-01T03:00:00Z"));
    assertThat(every.last(Instant.parse("2026-01-01T02:59:59Z")))
        .contains(Instant.parse("2026-01-01T01:30:00Z"));
    assertThat(CronSchedule.parse("@every 1.5h").interval(Instant.EPOCH))
        .isEqualTo(every.interval(Instant.EPOCH));
  }

  @Test
  void badSchedulesSayWhatToWrite() {
    assertThatThrownBy(() -> CronSchedule.parse("CRON_TZ=Mars/Olympus 0 3 * * *"))
        .hasMessageContaining("unknown time zone Mars/Olympus");
    assertThatThrownBy(() -> CronSchedule.parse("@every 1x"))
        .hasMessageContaining("is not a duration; write it as 90m");
    assertThatThrownBy(() -> CronSchedule.parse("@every 30s"))
        .hasMessageContaining("more often than every minute");
    assertThat(CRD.matcher("@every soon").matches()).isFalse();
    assertThat(CRD.matcher("CRON_TZ=UTC").matches()).isFalse();
  }
}
