package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.thinvol.api.Durations;
import io.thinvol.operator.model.GroupSnapshotModel;
import io.thinvol.operator.model.SnapshotMetadataService;
import io.thinvol.operator.monitoring.MonitoringApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the cluster offers, read once at start: it decides which optional objects to create and
 * which kinds to watch.
 *
 * <p>An optional API counts as served when its group version lists every resource the operator
 * uses. A CRD just created is served only once it is Established; until then its group may already
 * be listed (another CRD of the group is Established) without it: the operator waits for it (up to
 * {@link #ESTABLISHING}, within the liveness probe's patience), saying so, rather than failing to
 * start its informers. A CRD still not Established then (its names conflict with another's) leaves
 * its API off, with a warning; a restart reads the cluster again.
 *
 * @param snapshotMetadataApi the cluster serves the SnapshotMetadataService CRD in the version the
 *     external-snapshot-metadata sidecar reads
 * @param groupSnapshotApi the cluster serves the group snapshot CRDs in the version the
 *     csi-snapshotter reads
 * @param monitoringApi the cluster serves the Prometheus Operator's PodMonitors and
 *     PrometheusRules, which the operator makes
 */
public record ClusterFacts(
    boolean openShift,
    boolean snapshotApi,
    boolean snapshotMetadataApi,
    boolean groupSnapshotApi,
    boolean monitoringApi) {

  private static final Logger log = LoggerFactory.getLogger(ClusterFacts.class);

  static final String OPENSHIFT_SECURITY = "security.openshift.io";
  static final String SNAPSHOTS = "snapshot.storage.k8s.io";
  static final String SNAPSHOTS_VERSION = SNAPSHOTS + "/v1";
  static final Duration ESTABLISHING = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofSeconds(1);

  public static ClusterFacts of(KubernetesClient client) {
    return of(client, ESTABLISHING, POLL, message -> log.info("{}", message));
  }

  /**
   * @param patience how long to wait for a CRD of a listed group to be Established
   * @param report told what is waited for, whenever that changes
   */
  static ClusterFacts of(
      KubernetesClient client, Duration patience, Duration poll, Consumer<String> report) {
    long deadline = System.nanoTime() + patience.toNanos();
    List<String> reported = List.of();
    while (true) {
      List<String> establishing = new ArrayList<>();
      ClusterFacts facts = read(client, establishing);
      if (establishing.isEmpty()) {
        return facts;
      }
      if (System.nanoTime() > deadline) {
        log.warn(
            "the CRD(s) {} are still not Established after {} (a names conflict? see kubectl get"
                + " crd -o yaml): their APIs stay off until the operator restarts",
            establishing,
            Durations.text(patience));
        return facts;
      }
      if (!establishing.equals(reported)) {
        report.accept(
            "waiting for the CRD(s) "
                + String.join(", ", establishing)
                + " to be Established: their API group is served, they are not yet");
        reported = establishing;
      }
      sleep(poll);
    }
  }

  /** The facts as discovery tells them now; CRDs of a listed group not served yet are added. */
  private static ClusterFacts read(KubernetesClient client, List<String> establishing) {
    List<APIGroup> served = client.getApiGroups().getGroups();
    Set<String> groups = served.stream().map(APIGroup::getName).collect(Collectors.toSet());
    boolean snapshots =
        serves(
            client,
            served,
            SNAPSHOTS_VERSION,
            List.of("volumesnapshotclasses", "volumesnapshotcontents"),
            establishing);
    return new ClusterFacts(
        groups.contains(OPENSHIFT_SECURITY),
        snapshots,
        serves(
            client,
            served,
            SnapshotMetadataService.API_VERSION,
            List.of("snapshotmetadataservices"),
            establishing),
        serves(
            client,
            served,
            GroupSnapshotModel.API_VERSION,
            List.of("volumegroupsnapshotclasses"),
            establishing),
        serves(client, served, MonitoringApi.API_VERSION, MonitoringApi.RESOURCES, establishing));
  }

  /**
   * Whether {@code groupVersion} serves every one of {@code resources}; where it is listed but
   * lacks some, their CRDs are being established.
   */
  private static boolean serves(
      KubernetesClient client,
      List<APIGroup> served,
      String groupVersion,
      List<String> resources,
      List<String> establishing) {
    boolean listed =
        served.stream()
            .flatMap(group -> group.getVersions().stream())
            .anyMatch(version -> version.getGroupVersion().equals(groupVersion));
    if (!listed) {
      return false;
    }
    Set<String> names = servedResources(client, groupVersion);
    String group = groupVersion.substring(0, groupVersion.indexOf('/'));
    List<String> missing = resources.stream().filter(r -> !names.contains(r)).toList();
    missing.forEach(resource -> establishing.add(resource + "." + group));
    return missing.isEmpty();
  }

  /**
   * The resources {@code groupVersion} serves now, as discovery lists them: empty when it lists
   * none (no CRD of the group version is Established).
   */
  public static Set<String> servedResources(KubernetesClient client, String groupVersion) {
    APIResourceList list;
    try {
      list = client.getApiResources(groupVersion);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Set.of();
      }
      throw e;
    }
    if (list == null) {
      return Set.of();
    }
    return list.getResources().stream().map(APIResource::getName).collect(Collectors.toSet());
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for CRDs to be established", e);
    }
  }
}
