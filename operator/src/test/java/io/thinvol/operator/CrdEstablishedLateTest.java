package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.operator.model.Settings;
import io.thinvol.testing.TestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator started right after the snapshot CRDs were applied: a real API server serves a CRD
 * only once it is Established, and lists its group as soon as one CRD of the group is. The operator
 * waits for the CRD it watches (and says so) instead of failing to start its informer.
 *
 * <p>To hold a CRD un-Established for as long as the test needs, a decoy CRD of the same group
 * takes its kind first: the naming controller refuses the real one's names until the decoy goes.
 */
class CrdEstablishedLateTest {

  private static final String CONTENTS = "volumesnapshotcontents.snapshot.storage.k8s.io";
  private static final String DECOY = "decoys.snapshot.storage.k8s.io";

  TestCluster cluster;
  KubernetesClient operatorClient;

  @BeforeEach
  void start() {
    cluster = TestCluster.start();
    cluster.namespace(TestCluster.OPERATOR_NAMESPACE);
    operatorClient = cluster.operator();
    createAndAwaitEstablished(decoy());
    snapshotCrds().forEach(crd -> cluster.admin().resource(crd).create()); // as kubectl apply
    awaitEstablished("volumesnapshotclasses.snapshot.storage.k8s.io");
  }

  @AfterEach
  void stop() {
    operatorClient.close();
    cluster.close();
  }

  @Test
  void theOperatorWaitsForAWatchedCrdToBeEstablished() throws Exception {
    List<String> reports = new CopyOnWriteArrayList<>();
    CompletableFuture<ClusterFacts> facts =
        CompletableFuture.supplyAsync(
            () ->
                ClusterFacts.of(
                    operatorClient, Duration.ofSeconds(60), Duration.ofMillis(100), reports::add));

    MockClusterTest.await("the wait reported", () -> !reports.isEmpty());
    assertThat(reports.get(0)).contains(CONTENTS, "Established");
    assertThat(facts).as("still waiting while the CRD is not Established").isNotDone();

    cluster.admin().apiextensions().v1().customResourceDefinitions().withName(DECOY).delete();
    ClusterFacts read = facts.get(60, TimeUnit.SECONDS);

    assertThat(read.snapshotApi()).isTrue();
    startsAndStops(read);
  }

  @Test
  void aCrdNeverEstablishedLeavesItsApiOffAndTheOperatorStarts() throws Exception {
    ClusterFacts read =
        ClusterFacts.of(operatorClient, Duration.ofSeconds(2), Duration.ofMillis(100), r -> {});

    assertThat(read.snapshotApi()).isFalse();
    startsAndStops(read);
  }

  /** The operator starts with what it read (its informers start) and stops. */
  private void startsAndStops(ClusterFacts facts) throws IOException {
    Settings settings =
        new Settings(
            TestCluster.OPERATOR_NAMESPACE,
            MockClusterTest.SETTINGS.operatorImage(),
            facts.openShift(),
            facts.snapshotApi());
    try (OperatorRunner runner =
        OperatorRunner.start(
            operatorClient,
            settings,
            false,
            -1,
            MockClusterTest.noDriverCalls(),
            MockClusterTest.noMoveCopies(),
            MockClusterTest.serverSideApplyOf(cluster))) {
      assertThat(runner.addons()).isNotNull();
    }
  }

  /** A CRD of the snapshot group whose kind is VolumeSnapshotContent's. */
  private static CustomResourceDefinition decoy() {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName(DECOY)
        .addToAnnotations("api-approved.kubernetes.io", "unapproved, a decoy of this test")
        .endMetadata()
        .withNewSpec()
        .withGroup("snapshot.storage.k8s.io")
        .withScope("Cluster")
        .withNewNames()
        .withPlural("decoys")
        .withSingular("decoy")
        .withKind("VolumeSnapshotContent")
        .withListKind("DecoyList")
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .withXKubernetesPreserveUnknownFields(true)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }

  private static List<CustomResourceDefinition> snapshotCrds() {
    try (InputStream in = TestCluster.class.getResourceAsStream("snapshot-crds.yaml")) {
      String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return Arrays.stream(yaml.split("(?m)^---$"))
          .map(document -> Serialization.unmarshal(document, CustomResourceDefinition.class))
          .toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void createAndAwaitEstablished(CustomResourceDefinition crd) {
    cluster.admin().resource(crd).create();
    awaitEstablished(crd.getMetadata().getName());
  }

  private void awaitEstablished(String name) {
    cluster
        .admin()
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(name)
        .waitUntilCondition(TestCluster::established, 30, TimeUnit.SECONDS);
  }
}
