package io.thinvol.driver.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import io.thinvol.driver.kube.ApiServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which driver pod of a node a forwarded call goes to: a Ready one, not merely a running one. */
class DriverPodsTest {

  private HttpServer server;
  private volatile String items = "";
  private DriverPods pods;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v1/namespaces/thinvol-system/pods",
        exchange -> {
          byte[] body =
              ("{\"kind\":\"PodList\",\"items\":[" + items + "]}").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    ApiServer api =
        ApiServer.at(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "token");
    pods = new DriverPods(() -> api, "thinvol-system", "app=thinvol-node", 9070);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aPodThatRunsButIsNotReadyIsUnavailableNamingIt() {
    items = pod("thinvol-node-x1", "10.0.0.5", "False", false);
    CsiException refused = catchThrowableOfType(() -> pods.on("node-b"), CsiException.class);
    assertThat(refused.code()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.getMessage())
        .contains("thinvol-node-x1")
        .contains("node-b")
        .contains("not ready");
  }

  @Test
  void duringARolloutTheReadyPodIsCalledNotTheOneStartingNorTheOneLeaving() {
    items =
        String.join(
            ",",
            pod("thinvol-node-old", "10.0.0.5", "True", true),
            pod("thinvol-node-starting", "10.0.0.6", "False", false),
            pod("thinvol-node-new", "10.0.0.7", "True", false));
    PeerEndpoint endpoint = pods.on("node-b");
    assertThat(endpoint.pod()).isEqualTo("thinvol-node-new");
    assertThat(endpoint.host()).isEqualTo("10.0.0.7");
    assertThat(endpoint.port()).isEqualTo(9443);
  }

  @Test
  void aNodeWithoutADriverPodIsUnavailableSayingSo() {
    items = "";
    CsiException refused = catchThrowableOfType(() -> pods.on("node-b"), CsiException.class);
    assertThat(refused.code()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(refused.getMessage()).contains("no driver pod").contains("node-b");
  }

  private static String pod(String name, String ip, String ready, boolean leaving) {
    return "{\"metadata\":{\"name\":\""
        + name
        + "\""
        + (leaving ? ",\"deletionTimestamp\":\"2026-11-24T08:00:00Z\"" : "")
        + "},\"spec\":{\"nodeName\":\"node-b\",\"containers\":[{\"name\":\"driver\",\"ports\":"
        + "[{\"name\":\"addons\",\"containerPort\":9443}]}]},\"status\":{\"phase\":\"Running\","
        + "\"podIP\":\""
        + ip
        + "\",\"conditions\":[{\"type\":\"Ready\",\"status\":\""
        + ready
        + "\"}]}}";
  }
}
