package io.thinvol.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.thinvol.api.kube.Events;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.TestCluster;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl describe} shows the Events of one second in the order they happened: the API
 * server stores their timestamps to the second and lists Events by name, so the names must follow
 * time (a job's Started and Succeeded are often one second's).
 */
class EventOrderTest {

  @Test
  void eventsOfOneSecondAreDescribedInTheOrderTheyHappened() {
    try (TestCluster cluster = TestCluster.start()) {
      cluster.namespace("apps");
      ConfigMap object =
          cluster
              .admin()
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName("data")
                      .withNamespace("apps")
                      .endMetadata()
                      .build())
              .create();
      Events events =
          new Events(
              cluster.admin(),
              Clock.fixed(Instant.parse("2026-11-18T10:00:00.5Z"), ZoneOffset.UTC));
      List<String> happened = IntStream.range(0, 10).mapToObj(i -> "Step" + i).toList();

      happened.forEach(reason -> events.normal(object, reason, "one step"));

      assertThat(DescribedEvents.reasons(cluster.admin(), object))
          .containsExactlyElementsOf(happened);
    }
  }
}
