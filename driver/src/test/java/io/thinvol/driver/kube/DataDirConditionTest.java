package io.thinvol.driver.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.thinvol.driver.SmallFilesystem;
import io.thinvol.driver.core.DataDirHealth;
import io.thinvol.driver.core.DataDirUsability;
import io.thinvol.driver.host.HostTools;
import io.thinvol.driver.host.ProcessCommandRunner;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's own Pod says when its data dir is full, and the API server hears only changes. The
 * mock API server records the patches: a real one merges them by condition type (strategic merge),
 * which the mock does not implement.
 */
@EnableKubernetesMockClient(https = false)
class DataDirConditionTest {

  private static final String POD = "/api/v1/namespaces/thinvol-system/pods/thinvol-node-abc";
  // one strategic-merge patch of the Pod's status, no read before it
  private static final int CALLS_PER_REPORT = 1;

  KubernetesMockServer server;

  private final List<RecordedRequest> patches = new CopyOnWriteArrayList<>();
  private final List<String> patchBodies = new CopyOnWriteArrayList<>();
  private SmallFilesystem dataFs;
  private DataDirCondition condition;

  @BeforeEach
  void start() throws Exception {
    dataFs = new SmallFilesystem(32L << 20);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("thinvol-node-abc")
            .withNamespace("thinvol-system")
            .endMetadata()
            .build();
    server
        .expect()
        .patch()
        .withPath(POD + "/status")
        .andReply(
            200,
            request -> {
              patches.add(request);
              patchBodies.add(request.getUtf8Body());
              return pod;
            })
        .always();
    condition =
        new DataDirCondition(
            new DataDirHealth(dataFs.mountPoint(), new HostTools(new ProcessCommandRunner())),
            () -> ApiServer.at(URI.create(server.url("/")), "driver-token"),
            "thinvol-system",
            "thinvol-node-abc",
            Clock.systemUTC());
  }

  @AfterEach
  void stop() throws Exception {
    condition.close();
    dataFs.close();
  }

  @Test
  void reportsAFullDataDirAndItsRecoveryOnlyWhenTheyHappen() throws Exception {
    condition.check();
    assertThat(patchedCondition())
        .containsEntry("type", "thinvol.io/DataDirFull")
        .containsEntry("status", "False")
        .containsEntry("reason", "SpaceAvailable");
    int afterFirst = server.getRequestCount();

    condition.check();
    condition.check();
    assertThat(server.getRequestCount()).as("nothing changed: no API call").isEqualTo(afterFirst);

    Path filler = dataFs.mountPoint().resolve("filler");
    dataFs.fill(filler);
    condition.check();
    Map<String, Object> full = patchedCondition();
    assertThat(full).containsEntry("status", "True").containsEntry("reason", "DataDirFull");
    assertThat((String) full.get("message")).contains(dataFs.mountPoint().toString(), "is full");

    Files.delete(filler);
    condition.check();
    assertThat(patchedCondition()).containsEntry("status", "False");
    assertThat(server.getRequestCount()).isEqualTo(afterFirst + 2 * CALLS_PER_REPORT);
  }

  @Test
  void reportsADataDirWithoutItsDedicatedMount() throws Exception {
    Path bare = Files.createTempDirectory("thinvol-no-disk-");
    try (DataDirCondition waiting =
        new DataDirCondition(
            new DataDirHealth(
                bare, new HostTools(new ProcessCommandRunner()), new DataDirUsability(bare, true)),
            () -> ApiServer.at(URI.create(server.url("/")), "driver-token"),
            "thinvol-system",
            "thinvol-node-abc",
            Clock.systemUTC())) {
      waiting.check();
      assertThat(patchedCondition("thinvol.io/DataDirUnusable"))
          .containsEntry("status", "True")
          .containsEntry("reason", "DedicatedMountMissing");
      assertThat((String) patchedCondition("thinvol.io/DataDirUnusable").get("message"))
          .contains(bare.toString(), "dedicated mount");
    } finally {
      Files.delete(bare);
    }
    condition.check();
    assertThat(patchedCondition("thinvol.io/DataDirUnusable"))
        .containsEntry("status", "False")
        .containsEntry("reason", "Usable");
  }

  private Map<String, Object> patchedCondition() throws Exception {
    return patchedCondition("thinvol.io/DataDirFull");
  }

  /** A condition of the last patch, which must be a strategic merge of the Pod's status. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> patchedCondition(String type) throws Exception {
    RecordedRequest patch = patches.get(patches.size() - 1);
    assertThat(patch.getHeader("Content-Type"))
        .startsWith("application/strategic-merge-patch+json");
    Map<String, Object> body =
        new ObjectMapper().readValue(patchBodies.get(patchBodies.size() - 1), Map.class);
    List<Map<String, Object>> conditions =
        (List<Map<String, Object>>) ((Map<String, Object>) body.get("status")).get("conditions");
    assertThat(conditions)
        .as("only the driver's conditions: the kubelet's are left alone")
        .extracting(c -> c.get("type"))
        .containsExactly("thinvol.io/DataDirFull", "thinvol.io/DataDirUnusable");
    return conditions.stream().filter(c -> type.equals(c.get("type"))).findFirst().orElseThrow();
  }
}
