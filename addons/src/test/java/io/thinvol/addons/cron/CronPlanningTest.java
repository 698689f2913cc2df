package io.thinvol.addons.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LongSummaryStatistics;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Schedules, stagger and the due-run decision, against chosen clock times. */
class CronPlanningTest {

  private static final Instant WEDNESDAY = Instant.parse("2026-11-18T10:00:00Z");

  @ParameterizedTest
  @CsvSource({
    "@weekly, 2026-11-22T00:00:00Z",
    "@daily, 2026-11-19T00:00:00Z",
    "@midnight, 2026-11-19T00:00:00Z",
    "@hourly, 2026-11-18T11:00:00Z",
    "@monthly, 2026-12-01T00:00:00Z",
    "@yearly, 2027-01-01T00:00:00Z",
    "*/15 * * * *, 2026-11-18T10:15:00Z",
    "30 2 * * 1-5, 2026-11-19T02:30:00Z",
    "0 3 1 * *, 2026-12-01T03:00:00Z"
  })
  void parsesFiveFieldsAndMacros(String text, String next) {
    assertThat(CronSchedule.parse(text).next(WEDNESDAY)).contains(Instant.parse(next));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "every day | is not 5 cron fields",
        "@fortnightly | unknown macro @fortnightly",
        "61 * * * * | is not a valid cron schedule",
        "* * * * * * | is not 5 cron fields",
        "' ' | the schedule is empty"
      })
  void refusesWhatItCannotRunSayingWhy(String text, String message) {
    assertThatThrownBy(() -> CronSchedule.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aThousandWeeklySchedulesSpreadOverTheWindow() {
    CronSchedule weekly = CronSchedule.parse("@weekly");
    Duration window = Duration.ofHours(2);
    Set<Long> offsets = new HashSet<>();
    LongSummaryStatistics stats = new LongSummaryStatistics();
    for (int i = 0; i < 1000; i++) {
      String uid = UUID.nameUUIDFromBytes(("pvc-" + i).getBytes()).toString();
      long seconds = StaggeredSchedule.of(weekly, uid, window, WEDNESDAY).offset().toSeconds();
      offsets.add(seconds);
      stats.accept(seconds);
    }
    // 1,000 draws from 7,200 seconds: nearly all distinct, covering the window evenly.
    assertThat(offsets.size()).isGreaterThan(900);
    assertThat(stats.getMin()).isGreaterThanOrEqualTo(0).isLessThan(300);
    assertThat(stats.getMax()).isLessThan(7200).isGreaterThan(6900);
    assertThat(stats.getAverage()).isBetween(3200.0, 4000.0);
  }

  @Test
  void theOffsetIsStableAndSmallerThanAShortPeriod() {
    CronSchedule everyFive = CronSchedule.parse("*/5 * * * *");
    String uid = "6a1f3c2e-0000-4000-8000-000000000001";
    Duration offset = StaggeredSchedule.of(everyFive, uid, Duration.ofHours(2), WEDNESDAY).offset();
    assertThat(offset).isLessThan(Duration.ofMinutes(5));
    assertThat(StaggeredSchedule.of(everyFive, uid, Duration.ofHours(2), WEDNESDAY).offset())
        .isEqualTo(offset);
    assertThat(StaggeredSchedule.of(everyFive, uid, Duration.ZERO, WEDNESDAY).offset()).isZero();
  }

  @Test
  void aStaggeredRunFiresAtTheOffsetNotBefore() {
    StaggeredSchedule hourly =
        new StaggeredSchedule(CronSchedule.parse("@hourly"), Duration.ofMinutes(7));
    assertThat(hourly.next(WEDNESDAY)).contains(Instant.parse("2026-11-18T10:07:00Z"));
    CronPlanner.Plan early =
        CronPlanner.plan(hourly, WEDNESDAY, Instant.parse("2026-11-18T10:06:59Z"), null);
    assertThat(early.due()).isEmpty();
    CronPlanner.Plan onTime =
        CronPlanner.plan(hourly, WEDNESDAY, Instant.parse("2026-11-18T10:07:00Z"), null);
    assertThat(onTime.due()).contains(Instant.parse("2026-11-18T10:07:00Z"));
  }

  @Test
  void nothingIsDueBeforeTheFirstRun() {
    CronPlanner.Plan plan =
        CronPlanner.plan(hourly(), WEDNESDAY, WEDNESDAY.plusSeconds(1800), null);
    assertThat(plan.due()).isEmpty();
    assertThat(plan.next()).contains(Instant.parse("2026-11-18T11:00:00Z"));
  }

  @Test
  void missedRunsStartOnlyTheLatestAndCountTheRest() {
    CronPlanner.Plan plan =
        CronPlanner.plan(hourly(), WEDNESDAY, Instant.parse("2026-11-18T14:10:00Z"), null);
    assertThat(plan.due()).contains(Instant.parse("2026-11-18T14:00:00Z"));
    assertThat(plan.missed()).isEqualTo(3); // 11:00, 12:00, 13:00
    assertThat(plan.tooLate()).isFalse();
    assertThat(plan.next()).contains(Instant.parse("2026-11-18T15:00:00Z"));
  }

  @Test
  void aRunLaterThanTheStartingDeadlineIsSkipped() {
    Instant now = Instant.parse("2026-11-18T14:10:00Z");
    assertThat(CronPlanner.plan(hourly(), WEDNESDAY, now, 60L).tooLate()).isTrue();
    assertThat(CronPlanner.plan(hourly(), WEDNESDAY, now, 600L).tooLate()).isFalse();
    assertThat(CronPlanner.plan(hourly(), WEDNESDAY, now, 599L).tooLate()).isTrue();
  }

  @Test
  void aRunAlreadyHandledIsNotDueAgain() {
    Instant handled = Instant.parse("2026-11-18T14:00:00Z");
    assertThat(CronPlanner.plan(hourly(), handled, handled.plusSeconds(59), null).due()).isEmpty();
  }

  @Test
  void missedRunsAreCountedOnlyUpToALimit() {
    StaggeredSchedule everyMinute =
        new StaggeredSchedule(CronSchedule.parse("* * * * *"), Duration.ZERO);
    CronPlanner.Plan plan =
        CronPlanner.plan(everyMinute, WEDNESDAY, WEDNESDAY.plus(Duration.ofDays(3)), null);
    assertThat(plan.due()).contains(WEDNESDAY.plus(Duration.ofDays(3)));
    assertThat(plan.missed()).isEqualTo(CronPlanner.MISSED_COUNT_LIMIT);
  }

  private static StaggeredSchedule hourly() {
    return new StaggeredSchedule(CronSchedule.parse("@hourly"), Duration.ZERO);
  }
}
