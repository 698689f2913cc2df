package io.thinvol.driver.cli;

/**
 * Netty's buffers for a process that serves a few calls a second: allocated for each read and write
 * and freed after it, not pooled. gRPC's pooled allocator keeps a 2 MiB chunk for each arena a
 * thread has touched, in direct memory and in the Java heap (TLS works on heap buffers): on an idle
 * driver that was 8 to 9 MiB of RSS after its first calls, for buffers of a few KiB. Direct ones
 * are taken from malloc and freed at once, without the JDK's zero fill and cleaner, where Netty may
 * reach the constructor that wraps an address: the driver jar's manifest opens {@code java.nio} for
 * it ({@code Add-Opens}); each 256 KiB piece of a copy between nodes was otherwise zeroed in every
 * buffer it passed through. Must run before any Netty class is loaded; a property given on the
 * command line wins.
 */
final class NettyBuffers {

  private NettyBuffers() {}

  static void unpooled() {
    setIfAbsent("io.grpc.netty.useCustomAllocator", "false");
    setIfAbsent("io.netty.allocator.type", "unpooled");
    setIfAbsent("io.netty.tryReflectionSetAccessible", "true");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
