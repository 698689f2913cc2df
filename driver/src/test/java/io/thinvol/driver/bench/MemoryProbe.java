package io.thinvol.driver.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import csiaddons.identity.GetIdentityRequest;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.thinvol.driver.client.AddonsClient;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The cluster around a driver whose memory bench/driver-memory.sh measures, without a cluster.
 *
 * <p>{@code MemoryProbe api PORT}: an API server that accepts the driver's Pod status patches and
 * authenticates every TokenReview as the operator's ServiceAccount (the driver's real client code
 * runs; only the verdict is fixed). Runs until killed.
 *
 * <p>{@code MemoryProbe tls-call PORT CERTIFICATE AUDIENCE}: one CSI-Addons call on the driver's
 * TLS port with a token shaped like a ServiceAccount token for {@code AUDIENCE}, as the operator
 * makes it: a TLS handshake, the token screen and a TokenReview in the driver.
 */
public final class MemoryProbe {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OPERATOR = "system:serviceaccount:thinvol-system:thinvol-operator";

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "api" -> api(Integer.parseInt(args[1]));
      case "tls-call" -> tlsCall(Integer.parseInt(args[1]), new File(args[2]), args[3]);
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  private static void api(int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
    server.createContext(
        "/",
        exchange -> {
          JsonNode body = JSON.readTree(exchange.getRequestBody());
          if (exchange.getRequestURI().getPath().endsWith("/tokenreviews")) {
            JsonNode audiences = body.path("spec").path("audiences");
            reply(
                exchange,
                201,
                Map.of(
                    "kind",
                    "TokenReview",
                    "status",
                    Map.of(
                        "authenticated",
                        true,
                        "user",
                        Map.of("username", OPERATOR),
                        "audiences",
                        audiences)));
          } else {
            reply(exchange, 200, Map.of("kind", "Pod"));
          }
        });
    server.start();
  }

  private static void reply(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  // A loaded machine can keep a driver's first TLS handshake, run by the interpreter, past
  // Netty's 10 s handshake timeout: the call is tried again.
  private static void tlsCall(int port, File certificate, String audience) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        tlsCallOnce(port, certificate, audience);
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == 3) {
          throw e;
        }
      }
    }
  }

  private static void tlsCallOnce(int port, File certificate, String audience) throws Exception {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + token(audience));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("localhost", port)
            .sslContext(GrpcSslContexts.forClient().trustManager(certificate).build())
            .intercept(MetadataUtils.newAttachHeadersInterceptor(headers))
            .build();
    try (AddonsClient addons = new AddonsClient(channel)) {
      String name =
          addons.identity().getIdentity(GetIdentityRequest.getDefaultInstance()).getName();
      System.out.println("tls_call_identity " + name);
    }
  }

  // Unsigned: the driver's screen looks at the shape; the probe's API server is the authority.
  private static String token(String audience) throws IOException {
    Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
    String header =
        base64.encodeToString(
            JSON.writeValueAsBytes(Map.of("alg", "RS256", "kid", "probe", "typ", "JWT")));
    String payload =
        base64.encodeToString(
            JSON.writeValueAsBytes(
                Map.of(
                    "aud",
                    List.of(audience),
                    "sub",
                    OPERATOR,
                    "exp",
                    Instant.now().plusSeconds(3600).getEpochSecond())));
    return header
        + "."
        + payload
        + "."
        + base64.encodeToString("signature".getBytes(StandardCharsets.US_ASCII));
  }
}
