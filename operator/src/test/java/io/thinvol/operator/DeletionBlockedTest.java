package io.thinvol.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.thinvol.api.kube.Events;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StatusModel;
import io.thinvol.testing.ApiRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A deletion blocked by volumes says so once per change of its users: retries that find the same
 * users write no status and add no Event, the one Warning keeps its name and counts, and the users
 * come from the caches, not from a cluster-wide list per retry.
 */
class DeletionBlockedTest extends MockClusterTest {

  @Test
  void retriesWithTheSameUsersAreSilentAndAChangeUpdatesTheOneEvent() {
    apply("metadata:\n  name: held\n");
    namespaced(DaemonSet.class, "thinvol-held-node");
    await(
        "the finalizer",
        () ->
            !client
                .resources(StorageBackend.class)
                .withName("held")
                .get()
                .getMetadata()
                .getFinalizers()
                .isEmpty());
    cluster.namespace("apps");
    client
        .persistentVolumeClaims()
        .inNamespace("apps")
        .resource(claim("apps", "a", "held"))
        .create();
    client.resources(StorageBackend.class).withName("held").delete();
    awaitBlockedBy("PVC apps/a");
    drainRequests();

    // Each change of the claim wakes the deletion (the claim cache) with the same users.
    for (int i = 0; i < 3; i++) {
      client
          .persistentVolumeClaims()
          .inNamespace("apps")
          .withName("a")
          .edit(
              c -> {
                c.getMetadata().setLabels(Map.of("touch", String.valueOf(System.nanoTime())));
                return c;
              });
    }
    client
        .persistentVolumeClaims()
        .inNamespace("apps")
        .resource(claim("apps", "b", "held"))
        .create();
    awaitBlockedBy("PVC apps/b");

    // The Event follows the status write.
    await("the Event naming both claims", () -> !blockedEvents("PVC apps/b").isEmpty());
    List<ApiRequest> requests = new ArrayList<>(drainRequests());
    assertThat(requests)
        .as("one status write: the users changed once")
        .filteredOn(r -> r.resource().equals("storagebackends/status"))
        .hasSize(1);
    assertThat(requests)
        .as("no lists: the users come from the caches")
        .noneMatch(r -> r.verb().equals("list"));
    assertThat(blockedEvents(""))
        .as("one Event, under one name, counted")
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getCount()).isEqualTo(2);
              assertThat(e.getMessage()).contains("PVC apps/a", "PVC apps/b");
            });
  }

  private List<Event> blockedEvents(String naming) {
    return client
        .v1()
        .events()
        .inNamespace(Events.CLUSTER_SCOPED_NAMESPACE)
        .list()
        .getItems()
        .stream()
        .filter(e -> e.getInvolvedObject().getName().equals("held"))
        .filter(e -> e.getReason().equals("DeletionBlocked"))
        .filter(e -> e.getMessage().contains(naming))
        .toList();
  }

  @Test
  void theRetryBacksOffFromTenSecondsToFiveMinutes() {
    DeletionBackoff backoff = new DeletionBackoff();
    List<Duration> waits = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      waits.add(backoff.next("uid-1"));
    }
    assertThat(waits)
        .extracting(Duration::toSeconds)
        .containsExactly(10L, 20L, 40L, 80L, 160L, 300L, 300L);
    assertThat(backoff.next("uid-2")).as("per backend").isEqualTo(Duration.ofSeconds(10));
    backoff.reset("uid-1");
    assertThat(backoff.next("uid-1")).isEqualTo(Duration.ofSeconds(10));
  }

  private void awaitBlockedBy(String user) {
    await(
        "DeletionBlocked by " + user,
        () -> {
          StorageBackend now = client.resources(StorageBackend.class).withName("held").get();
          return now != null
              && now.getStatus() != null
              && StatusModel.message(now.getStatus(), StatusModel.DEGRADED).contains(user);
        });
  }
}
