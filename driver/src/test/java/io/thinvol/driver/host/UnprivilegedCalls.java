package io.thinvol.driver.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Makes a bind mount and unmounts a mount its parent made, printing what each failure said: run by
 * {@link PrivilegesTest} in a child process without CAP_SYS_ADMIN.
 */
public final class UnprivilegedCalls {

  private UnprivilegedCalls() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    CommandRunner runner = new ProcessCommandRunner();
    Path source = Files.createDirectories(dir.resolve("source"));
    Path target = Files.createDirectories(dir.resolve("target"));
    report("bind", () -> new Mounts(runner).bind(source, target, false, List.of()));
    report("unmount", () -> new Mounts(runner).unmount(dir.resolve("mounted")));
  }

  private static void report(String what, Runnable call) {
    try {
      call.run();
      System.out.println(what + ": succeeded");
    } catch (HostCommandException e) {
      System.out.println(what + ": " + e.getMessage());
    }
  }
}
