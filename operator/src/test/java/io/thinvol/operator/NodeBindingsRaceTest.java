package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.testing.Rbac;
import io.thinvol.testing.RepoFiles;
import io.thinvol.testing.StrictCluster;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The shared node binding's subjects are written whole from each reconcile's view of the backends,
 * and JOSDK reconciles different backends in parallel; the informer's cache still lists a deleted
 * backend until its finalizer's removal arrives. Neither may bind a removed backend's
 * ServiceAccount again. Driven directly, in the orders a running operator can produce.
 */
class NodeBindingsRaceTest {

  private static final String NAMESPACE = MockClusterTest.NAMESPACE;

  private StrictCluster cluster;
  private KubernetesClient client;
  private final NodeClusterRoleBindings bindings = new NodeClusterRoleBindings();
  private final StorageBackend alpha = backend("alpha");
  private final StorageBackend beta = backend("beta");

  @BeforeEach
  void start() {
    cluster =
        StrictCluster.start(
            Rbac.fromClusterServiceVersion(RepoFiles.clusterServiceVersion(), NAMESPACE));
    client = cluster.admin();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  @DisplayName("A reconcile whose cache still lists a removed backend does not bind it again")
  void aStaleCacheDoesNotBindARemovedBackendAgain() {
    Supplier<List<StorageBackend>> bothCached = () -> List.of(alpha, beta);
    bindings.bind(client, MockClusterTest.SETTINGS, bothCached);
    assertThat(subjects()).containsExactly("thinvol-alpha-node", "thinvol-beta-node");

    bindings.unbind(client, MockClusterTest.SETTINGS, alpha, bothCached);
    assertThat(subjects()).containsExactly("thinvol-beta-node");

    // beta's reconcile, before alpha's finalizer removal has reached the cache
    bindings.bind(client, MockClusterTest.SETTINGS, bothCached);
    assertThat(subjects()).as("alpha's objects are gone").containsExactly("thinvol-beta-node");
  }

  @RepeatedTest(5)
  @DisplayName("Two backends deleted at once leave no subject behind")
  void twoDeletionsAtOnceUnbindBoth() throws Exception {
    Supplier<List<StorageBackend>> bothCached = () -> List.of(alpha, beta);
    bindings.bind(client, MockClusterTest.SETTINGS, bothCached);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<Void> alphaGone = removeAfter(go, alpha, bothCached);
    CompletableFuture<Void> betaGone = removeAfter(go, beta, bothCached);
    go.countDown();
    CompletableFuture.allOf(alphaGone, betaGone).get();
    assertThat(subjects()).isEmpty();
  }

  @Test
  @DisplayName("A backend made again under a removed one's name is bound")
  void aNewBackendOfARemovedOnesNameIsBound() {
    bindings.bind(client, MockClusterTest.SETTINGS, () -> List.of(alpha));
    bindings.unbind(client, MockClusterTest.SETTINGS, alpha, () -> List.of(alpha));
    assertThat(subjects()).isEmpty();

    StorageBackend again = backend("alpha");
    bindings.bind(client, MockClusterTest.SETTINGS, () -> List.of(alpha, again));
    assertThat(subjects()).containsExactly("thinvol-alpha-node");
  }

  private CompletableFuture<Void> removeAfter(
      CountDownLatch go, StorageBackend removed, Supplier<List<StorageBackend>> cached) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
          bindings.unbind(client, MockClusterTest.SETTINGS, removed, cached);
        });
  }

  private List<String> subjects() {
    ClusterRoleBinding binding =
        client.rbac().clusterRoleBindings().withName(Names.NODE_CLUSTER_ROLE_BINDING).get();
    return binding.getSubjects().stream().map(Subject::getName).toList();
  }

  private static StorageBackend backend(String name) {
    StorageBackend backend = new StorageBackend();
    backend.getMetadata().setName(name);
    backend.getMetadata().setUid(UUID.randomUUID().toString());
    return backend;
  }
}
