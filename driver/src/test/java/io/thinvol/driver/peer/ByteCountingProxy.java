package io.thinvol.driver.peer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of a driver's TLS port that counts the bytes the driver sends back: what a
 * pulled copy really costs on the wire, TLS and HTTP/2 framing included.
 */
final class ByteCountingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int target;
  private final AtomicLong fromTarget = new AtomicLong();

  ByteCountingProxy(int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress("127.0.0.1", 0));
    Thread acceptor = new Thread(this::accept, "proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Bytes the target sent since the last call. */
  long takeBytesFromTarget() {
    return fromTarget.getAndSet(0);
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket("127.0.0.1", target);
        relay(client, server, null);
        relay(server, client, fromTarget);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void relay(Socket from, Socket to, AtomicLong counter) {
    Thread pump =
        new Thread(
            () -> {
              byte[] buffer = new byte[1 << 16];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                  out.write(buffer, 0, read);
                  if (counter != null) {
                    counter.addAndGet(read);
                  }
                }
              } catch (IOException e) {
                // one side went away: the other is closed below
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-relay");
    pump.setDaemon(true);
    pump.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
