package io.thinvol.driver.host;

/**
 * A loop device was told to detach (LOOP_CLR_FD) but is still bound to its image after the wait:
 * another process or a mount elsewhere keeps it open, and the kernel detaches it only when the last
 * of them closes it. Retrying the call once they are gone succeeds.
 */
public final class DetachPendingException extends HostCommandException {

  DetachPendingException(String message) {
    super(message);
  }
}
