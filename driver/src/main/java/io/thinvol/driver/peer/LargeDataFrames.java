package io.thinvol.driver.peer;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;

/**
 * TLS to a peer, and once the channel's first call starts, a request to the peer to send HTTP/2
 * DATA frames of up to {@value #MAX_FRAME_SIZE} bytes ({@code SETTINGS_MAX_FRAME_SIZE}, RFC 9113
 * 6.5.2) instead of the 16 KiB every HTTP/2 peer starts with. A copy's 1 MiB piece then crosses as
 * one frame, not 64: Netty and gRPC spend their work per frame, and that work, more than TLS, was
 * what set the drivers' copy behind the raw tools' (docs/benchmarks.md). grpc-java has no setting
 * for it (grpc-java#7029 was declined), so this wraps gRPC's own TLS negotiator through
 * grpc-netty's {@code Internal} API and writes the SETTINGS frame with gRPC's HTTP/2 encoder, which
 * applies the larger limit to this side's frame reader once the peer acknowledges it. A peer that
 * ignores it sends 16 KiB frames, as before.
 */
final class LargeDataFrames implements InternalProtocolNegotiator.ClientFactory {

  static final int MAX_FRAME_SIZE = 1 << 20;

  private final SslContext tls;

  private LargeDataFrames(SslContext tls) {
    this.tls = tls;
  }

  /** {@code builder} made to speak TLS by {@code tls} and to ask for large frames. */
  static NettyChannelBuilder overTls(NettyChannelBuilder builder, SslContext tls) {
    InternalNettyChannelBuilder.setProtocolNegotiatorFactory(builder, new LargeDataFrames(tls));
    return builder;
  }

  @Override
  public InternalProtocolNegotiator.ProtocolNegotiator newNegotiator() {
    return new Negotiator(InternalProtocolNegotiators.tls(tls));
  }

  @Override
  public int getDefaultPort() {
    return 443;
  }

  private static final class Negotiator implements InternalProtocolNegotiator.ProtocolNegotiator {

    private final InternalProtocolNegotiator.ProtocolNegotiator tls;

    Negotiator(InternalProtocolNegotiator.ProtocolNegotiator tls) {
      this.tls = tls;
    }

    @Override
    public AsciiString scheme() {
      return tls.scheme();
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler http2) {
      ChannelHandler negotiation = tls.newHandler(http2);
      Asker asker = new Asker(http2);
      http2.connection().addListener(asker);
      return asker.remembering(negotiation);
    }

    @Override
    public void close() {
      tls.close();
    }
  }

  /**
   * Asks once the first stream opens: by then gRPC's HTTP/2 handler is in the pipeline, past the
   * TLS handshake and its own preface. Everything here runs on the channel's event loop.
   */
  private static final class Asker extends Http2ConnectionAdapter {

    private final GrpcHttp2ConnectionHandler http2;
    private Channel channel;
    private boolean asked;

    Asker(GrpcHttp2ConnectionHandler http2) {
      this.http2 = http2;
    }

    /** A handler that notes the channel and puts {@code negotiation} in its place. */
    ChannelHandler remembering(ChannelHandler negotiation) {
      return new ChannelHandlerAdapter() {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
          channel = ctx.channel();
          ctx.pipeline().replace(this, null, negotiation);
        }
      };
    }

    @Override
    public void onStreamActive(Http2Stream stream) {
      if (asked || channel == null) {
        return;
      }
      asked = true;
      // After the stream's own HEADERS: not from inside the encoder that is writing them
      channel.eventLoop().execute(this::ask);
    }

    private void ask() {
      ChannelHandlerContext ctx = channel.pipeline().context(http2);
      if (ctx == null) {
        return; // the channel closed meanwhile
      }
      http2
          .encoder()
          .writeSettings(ctx, new Http2Settings().maxFrameSize(MAX_FRAME_SIZE), ctx.newPromise());
      ctx.flush();
    }
  }
}
