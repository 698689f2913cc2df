package io.thinvol.addons.call;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The operator's own ServiceAccount token, re-read once a minute because the kubelet rotates
 * projected tokens.
 */
public final class ServiceAccountToken implements Supplier<String> {

  public static final Path IN_POD = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");
  private static final Duration REREAD = Duration.ofMinutes(1);

  private final Path file;
  private final Clock clock;
  private String token;
  private Instant readAt = Instant.MIN;

  public ServiceAccountToken(Path file, Clock clock) {
    this.file = file;
    this.clock = clock;
  }

  @Override
  public synchronized String get() {
    Instant now = clock.instant();
    if (token == null || now.isAfter(readAt.plus(REREAD))) {
      try {
        token = Files.readString(file, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the ServiceAccount token at " + file, e);
      }
      readAt = now;
    }
    return token;
  }
}
