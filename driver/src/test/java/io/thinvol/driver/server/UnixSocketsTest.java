package io.thinvol.driver.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CSI socket's path: a stale socket is replaced, anything else is never touched. */
class UnixSocketsTest {

  @Test
  void aFileWhereTheSocketGoesIsLeftAloneAndSaidInOneLine(@TempDir Path dir) throws Exception {
    Path notASocket = Files.writeString(dir.resolve("csi.sock"), "someone's data");
    EventLoopGroup group = UnixSockets.eventLoops(1);
    try {
      assertThatThrownBy(() -> UnixSockets.serverBuilder(notASocket, group))
          .isInstanceOf(IllegalStateException.class) // one line on stderr, exit code 2
          .hasMessage(
              notASocket
                  + " exists and is not a socket; refusing to replace it: move it away or give"
                  + " --csi-endpoint another path");
    } finally {
      group.shutdownGracefully().sync();
    }
    assertThat(Files.readString(notASocket)).isEqualTo("someone's data");
  }
}
