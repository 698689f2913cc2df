package io.thinvol.packaging.image;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A directory bind-mounted onto itself and made a shared mount, as a node's kubelet directory is: a
 * container's mount with Bidirectional propagation (rshared) needs one. Unmounted on close.
 */
final class SharedMount implements AutoCloseable {

  private final Path dir;

  private SharedMount(Path dir) {
    this.dir = dir;
  }

  static SharedMount of(Path dir) throws IOException, InterruptedException {
    run("mount", "--bind", dir.toString(), dir.toString());
    SharedMount mount = new SharedMount(dir);
    try {
      run("mount", "--make-rshared", dir.toString());
    } catch (IOException | RuntimeException e) {
      mount.close();
      throw e;
    }
    return mount;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("umount", "--recursive", dir.toString());
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
    }
  }
}
