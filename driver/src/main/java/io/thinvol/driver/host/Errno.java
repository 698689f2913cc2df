package io.thinvol.driver.host;

import com.sun.jna.LastErrorException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The one place that turns an errno into a {@link HostCommandException} a person can act on: what
 * failed, what the error means for it and the error's name, e.g. {@code umount /x failed: /x is
 * busy: a process still has a file open there or something is mounted below it (EBUSY)}.
 */
final class Errno {

  static final int EPERM = 1;
  static final int ENOENT = 2;
  static final int EINTR = 4;
  static final int EIO = 5;
  static final int ENXIO = 6;
  static final int EBADF = 9;
  static final int EAGAIN = 11;
  static final int EACCES = 13;
  static final int ENOTBLK = 15;
  static final int EBUSY = 16;
  static final int EEXIST = 17;
  static final int EXDEV = 18;
  static final int ENODEV = 19;
  static final int ENOTDIR = 20;
  static final int EINVAL = 22;
  static final int ENOTTY = 25;
  static final int EFBIG = 27;
  static final int ENOSPC = 28;
  static final int EROFS = 30;
  static final int ENOSYS = 38;
  static final int EOPNOTSUPP = 95;

  private static final Map<Integer, String> NAMES =
      Map.ofEntries(
          Map.entry(EPERM, "EPERM"),
          Map.entry(ENOENT, "ENOENT"),
          Map.entry(EINTR, "EINTR"),
          Map.entry(EIO, "EIO"),
          Map.entry(ENXIO, "ENXIO"),
          Map.entry(EBADF, "EBADF"),
          Map.entry(EAGAIN, "EAGAIN"),
          Map.entry(EACCES, "EACCES"),
          Map.entry(ENOTBLK, "ENOTBLK"),
          Map.entry(EBUSY, "EBUSY"),
          Map.entry(EEXIST, "EEXIST"),
          Map.entry(EXDEV, "EXDEV"),
          Map.entry(ENODEV, "ENODEV"),
          Map.entry(ENOTDIR, "ENOTDIR"),
          Map.entry(EINVAL, "EINVAL"),
          Map.entry(ENOTTY, "ENOTTY"),
          Map.entry(EFBIG, "EFBIG"),
          Map.entry(ENOSPC, "ENOSPC"),
          Map.entry(EROFS, "EROFS"),
          Map.entry(ENOSYS, "ENOSYS"),
          Map.entry(EOPNOTSUPP, "EOPNOTSUPP"));

  // What an errno means whatever the call, said of the file or device it failed on; a call says
  // more through HostCall#meaning.
  private static final Map<Integer, String> MEANINGS =
      Map.ofEntries(
          Map.entry(
              EPERM,
              "is not permitted without CAP_SYS_ADMIN: run the driver's container privileged, as"
                  + " the node DaemonSet does"),
          Map.entry(EACCES, "is not accessible: the driver must run as root"),
          Map.entry(ENOENT, "does not exist"),
          Map.entry(EBUSY, "is busy: still mounted, or used by a process or by a mount below it"),
          Map.entry(EIO, "reports an I/O error: its disk or filesystem is damaged (see dmesg)"),
          Map.entry(ENXIO, "has nothing attached"),
          Map.entry(ENODEV, "is no device the kernel knows, or its filesystem type is unavailable"),
          Map.entry(ENOTBLK, "is not a block device"),
          Map.entry(ENOTDIR, "is not a directory"),
          Map.entry(ENOSPC, "has no space left"),
          Map.entry(EROFS, "is on a read-only filesystem"),
          Map.entry(ENOTTY, "does not support it (kernel or filesystem)"),
          Map.entry(EOPNOTSUPP, "does not support it (kernel or filesystem)"),
          Map.entry(ENOSYS, "does not support it (kernel)"),
          Map.entry(EINVAL, "was refused: the kernel found an argument invalid"));

  /** A failed system call on a file or device other than the call's subject (its last argument). */
  static final class On extends RuntimeException {
    private final transient Path path;
    private final LastErrorException error;

    private On(Path path, LastErrorException error) {
      super(error);
      this.path = path;
      this.error = error;
    }
  }

  private Errno() {}

  /** Marks {@code error} as one of a call on {@code path}. */
  static On on(Path path, LastErrorException error) {
    return new On(path, error);
  }

  static String name(int errno) {
    return NAMES.getOrDefault(errno, "errno " + errno);
  }

  /** The failure of {@code call} with {@code error}, as the driver reports it. */
  static HostCommandException failure(HostCall<?> call, LastErrorException error) {
    List<String> shown = call.shown();
    return failure(call, shown.isEmpty() ? "" : shown.get(shown.size() - 1), error);
  }

  static HostCommandException failure(HostCall<?> call, On failed) {
    return failure(call, failed.path.toString(), failed.error);
  }

  private static HostCommandException failure(
      HostCall<?> call, String subject, LastErrorException error) {
    int errno = error.getErrorCode();
    String meaning =
        call.hints()
            .getOrDefault(errno, MEANINGS.getOrDefault(errno, "failed: " + strerror(error)));
    return new HostCommandException(
        CommandResult.shown(call.shown())
            + " failed: "
            + subject
            + " "
            + meaning
            + " ("
            + name(errno)
            + ")",
        errno,
        error);
  }

  /** JNA's message is "[errno] text"; the text is what strerror says. */
  private static String strerror(LastErrorException error) {
    String message = error.getMessage();
    if (message == null) {
      return "";
    }
    int end = message.indexOf(']');
    return (end >= 0 ? message.substring(end + 1) : message).strip();
  }
}
