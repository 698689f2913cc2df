package io.thinvol.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The API server as one client sees it, through a TCP relay on loopback that can make it vanish:
 * {@link #vanish} closes every connection and refuses new ones, as a server that went away. The
 * server itself keeps serving everyone else (a shared real one, the other tests' clients).
 */
final class VanishingApiServer implements AutoCloseable {

  private final ServerSocket listening;
  private final InetSocketAddress target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  VanishingApiServer(URI server) {
    this.target = new InetSocketAddress(server.getHost(), server.getPort());
    try {
      this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread accepting = new Thread(this::accept, "api-relay");
    accepting.setDaemon(true);
    accepting.start();
  }

  /** Where the client should connect instead of the server, with the server's scheme. */
  String url(String scheme) {
    return scheme + "://127.0.0.1:" + listening.getLocalPort();
  }

  /** From now on the server is gone for this client: connections closed, new ones refused. */
  void vanish() {
    close();
  }

  @Override
  public void close() {
    try {
      listening.close();
    } catch (IOException ignored) {
      // closing what may be closed already
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // the peer may have closed it
      }
    }
  }

  private void accept() {
    while (!listening.isClosed()) {
      try {
        Socket client = listening.accept();
        Socket server = new Socket(target.getAddress(), target.getPort());
        open.add(client);
        open.add(server);
        relay(client, server);
        relay(server, client);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private static void relay(Socket from, Socket to) {
    Thread pump =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException ended) {
                // one side closed: the other follows
              } finally {
                try {
                  to.close();
                } catch (IOException ignored) {
                  // already closed
                }
              }
            },
            "api-relay-pump");
    pump.setDaemon(true);
    pump.start();
  }
}
