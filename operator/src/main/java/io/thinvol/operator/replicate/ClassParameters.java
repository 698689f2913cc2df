package io.thinvol.operator.replicate;

import io.thinvol.api.v1alpha1.VolumeReplicationClass;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A VolumeReplicationClass's parameters, read: the interval between syncs (a Go duration, 10s to
 * 24h, default 5m) and the labels a standby must have. CSI-Addons' reserved secret keys are
 * accepted and ignored (thinvol's syncs need no secret); any other key is refused, so a typo is not
 * silently ignored.
 */
record ClassParameters(Duration interval, Map<String, String> standbyLabels) {

  static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(5);
  static final Duration MIN_INTERVAL = Duration.ofSeconds(10);
  static final Duration MAX_INTERVAL = Duration.ofHours(24);

  private static final String RESERVED = "replication.storage.openshift.io/";
  private static final Pattern GO_DURATION = Pattern.compile("(\\d+)(h|m|s)");

  /** The parameters, or why they cannot be used (a message for the Validated condition). */
  static Result parse(Map<String, String> parameters) {
    Map<String, String> given = parameters == null ? Map.of() : parameters;
    for (String key : given.keySet()) {
      if (!key.equals(VolumeReplicationClass.SCHEDULING_INTERVAL)
          && !key.equals(VolumeReplicationClass.STANDBY_NODE_SELECTOR)
          && !key.startsWith(RESERVED)) {
        return Result.invalid(
            "parameter "
                + key
                + " is not known; thinvol reads "
                + VolumeReplicationClass.SCHEDULING_INTERVAL
                + " and "
                + VolumeReplicationClass.STANDBY_NODE_SELECTOR);
      }
    }
    String intervalText = given.get(VolumeReplicationClass.SCHEDULING_INTERVAL);
    Duration interval = DEFAULT_INTERVAL;
    if (intervalText != null) {
      Optional<Duration> parsed = goDuration(intervalText.strip());
      if (parsed.isEmpty()
          || parsed.get().compareTo(MIN_INTERVAL) < 0
          || parsed.get().compareTo(MAX_INTERVAL) > 0) {
        return Result.invalid(
            "schedulingInterval '"
                + intervalText
                + "' is not a duration from 10s to 24h (write it as 1m, 90s or 1h30m)");
      }
      interval = parsed.get();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    String selector = given.get(VolumeReplicationClass.STANDBY_NODE_SELECTOR);
    if (selector != null && !selector.isBlank()) {
      for (String term : selector.split(",")) {
        String[] pair = term.strip().split("=", -1);
        if (pair.length != 2 || pair[0].isBlank()) {
          return Result.invalid(
              "standbyNodeSelector '" + selector + "' is not key=value[,key=value]");
        }
        labels.put(pair[0].strip(), pair[1].strip());
      }
    }
    return new Result(new ClassParameters(interval, Map.copyOf(labels)), null);
  }

  /** Hours, minutes and seconds as Go writes them: {@code 1h30m}, {@code 90s}. */
  static Optional<Duration> goDuration(String text) {
    if (text.isEmpty()) {
      return Optional.empty();
    }
    Matcher m = GO_DURATION.matcher(text);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        return Optional.empty();
      }
      long amount = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "h" -> Duration.ofHours(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofSeconds(amount);
              });
      end = m.end();
    }
    return end == text.length() ? Optional.of(total) : Optional.empty();
  }

  /** Parameters, or the reason they are refused. */
  record Result(ClassParameters parameters, String problem) {
    static Result invalid(String problem) {
      return new Result(null, problem);
    }
  }
}
