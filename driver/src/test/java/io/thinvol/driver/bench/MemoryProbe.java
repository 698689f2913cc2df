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
import io.thinvol.driver.auth.ServiceAccountTokens;
import io.thinvol.driver.auth.keys.ClusterSigningKeys;
import io.thinvol.driver.auth.keys.JwsAlgorithm;
import io.thinvol.driver.client.AddonsClient;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.time.Instant;
import java.util.Map;

/**
 * The cluster around a driver whose memory bench/driver-memory.sh measures, without a cluster.
 *
 * <p>{@code MemoryProbe api PORT KEY_FILE}: an API server that accepts the driver's Pod status
 * patches, publishes a signing key at /openid/v1/jwks (its private half written to {@code
 * KEY_FILE}) and authenticates every TokenReview as the operator's ServiceAccount (the driver's
 * real client code runs; only the verdict is fixed). Runs until killed.
 *
 * <p>{@code MemoryProbe tls-call PORT CERTIFICATE AUDIENCE KEY_FILE}: one CSI-Addons call on the
 * driver's TLS port with the operator's token for {@code AUDIENCE} signed with that key, as the
 * operator makes it: a TLS handshake, the token screen, the key set read, the signature check and a
 * TokenReview in the driver.
 */
public final class MemoryProbe {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OPERATOR_ACCOUNT = "thinvol-system:thinvol-operator";
  private static final String OPERATOR = "system:serviceaccount:" + OPERATOR_ACCOUNT;

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "api" -> api(Integer.parseInt(args[1]), Path.of(args[2]));
      case "tls-call" ->
          tlsCall(Integer.parseInt(args[1]), new File(args[2]), args[3], Path.of(args[4]));
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  private static void api(int port, Path keyFile) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair key = generator.generateKeyPair();
    Files.write(keyFile, key.getPrivate().getEncoded());
    byte[] jwks =
        new ServiceAccountTokens(JwsAlgorithm.RS256, key).jwks().getBytes(StandardCharsets.UTF_8);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
    server.createContext(
        "/",
        exchange -> {
          JsonNode body = JSON.readTree(exchange.getRequestBody());
          String path = exchange.getRequestURI().getPath();
          if (path.endsWith("/tokenreviews")) {
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
          } else if (path.equals(ClusterSigningKeys.JWKS_PATH)) {
            exchange.getResponseHeaders().set("Content-Type", "application/jwk-set+json");
            exchange.sendResponseHeaders(200, jwks.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(jwks);
            }
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
  private static void tlsCall(int port, File certificate, String audience, Path keyFile)
      throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        tlsCallOnce(port, certificate, token(audience, keyFile));
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == 3) {
          throw e;
        }
      }
    }
  }

  private static void tlsCallOnce(int port, File certificate, String token) throws Exception {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
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

  /** Signed with the key {@code api} wrote: the driver checks it against the key set served. */
  private static String token(String audience, Path keyFile) throws Exception {
    return new ServiceAccountTokens(JwsAlgorithm.RS256, readKey(keyFile))
        .issue(OPERATOR_ACCOUNT, audience, Instant.now().plusSeconds(3600));
  }

  private static KeyPair readKey(Path keyFile) throws Exception {
    KeyFactory rsa = KeyFactory.getInstance("RSA");
    RSAPrivateCrtKey key =
        (RSAPrivateCrtKey)
            rsa.generatePrivate(new PKCS8EncodedKeySpec(Files.readAllBytes(keyFile)));
    return new KeyPair(
        rsa.generatePublic(new RSAPublicKeySpec(key.getModulus(), key.getPublicExponent())), key);
  }
}
