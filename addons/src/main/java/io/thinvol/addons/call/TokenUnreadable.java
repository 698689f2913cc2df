package io.thinvol.addons.call;

/**
 * The operator cannot send its addons token: the file is missing, unreadable or holds no token for
 * the addons audience. The operator's own deployment is at fault, not the driver, and a job says
 * so.
 */
public final class TokenUnreadable extends IllegalStateException {

  TokenUnreadable(String message, Throwable cause) {
    super(message, cause);
  }
}
