package io.thinvol.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Writes to filesystems that may be frozen, and waits for what a held driver signals. */
public final class FrozenWrites {

  private FrozenWrites() {}

  /** A write in a process of its own: a write to a frozen filesystem cannot be interrupted. */
  public static Process write(Path file) throws Exception {
    return new ProcessBuilder("sh", "-c", "echo written > '" + file + "' && sync '" + file + "'")
        .redirectErrorStream(true)
        .start();
  }

  /** Waits up to a minute for {@code file} to appear. */
  public static void awaitFile(Path file) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(file)) {
      assertThat(System.nanoTime()).as("%s appears", file).isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
