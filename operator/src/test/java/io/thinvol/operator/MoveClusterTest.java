package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.thinvol.addons.ClusterFixtures;
import io.thinvol.addons.call.MoveCopier;
import io.thinvol.api.v1alpha1.MovePhase;
import io.thinvol.api.v1alpha1.VolumeMove;
import io.thinvol.testing.DescribedEvents;
import io.thinvol.testing.PlayedControllers;
import io.thinvol.testing.StrictApiServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the VolumeMove tests: a backend {@value #BACKEND} whose driver runs on nodes a, b and c
 * (pods Ready), the claim {@value #APPS}/{@value #CLAIM} bound to PersistentVolume {@value #OLD_PV}
 * on node a (reclaim policy Delete), a pod of the application using it, the storage controllers
 * played ({@link PlayedStorage}) and the drivers' copies faked ({@link FakeMoveCopier}).
 */
abstract class MoveClusterTest extends MockClusterTest {

  static final String BACKEND = "local";
  static final String DRIVER = "local.thinvol.io";
  static final String APPS = "apps";
  static final String CLAIM = "data";
  static final String OLD_PV = "pv-data";
  static final String OLD_HANDLE = "vol-data";
  static final String APP_POD = "web-0";

  final FakeMoveCopier copier = new FakeMoveCopier();
  PlayedStorage storage;

  @Override
  MoveCopier copier() {
    return copier;
  }

  /** The backend's spec, as YAML from {@code spec:}; none by default. */
  String backendSpec() {
    return "";
  }

  @BeforeEach
  void world() {
    apply("metadata:\n  name: " + BACKEND + "\n" + backendSpec());
    cluster.namespace(APPS);
    for (String node : List.of("node-a", "node-b", "node-c")) {
      client
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
      registerDriver(node, DRIVER);
    }
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, BACKEND, "node-a", "10.0.0.1", 9070));
    PlayedControllers.createWithStatus(
        client, ClusterFixtures.driverPod(NAMESPACE, BACKEND, "node-b", "10.0.0.2", 9070));
    PersistentVolume volume = volume(OLD_PV, OLD_HANDLE, "node-a", CLAIM);
    PersistentVolumeClaim claim =
        new PersistentVolumeClaimBuilder(ClusterFixtures.claim(APPS, CLAIM, BACKEND))
            .editMetadata()
            .withLabels(Map.of("app", "web"))
            .withAnnotations(Map.of("example.com/owner", "web team"))
            .endMetadata()
            .build();
    client.resource(claim).create();
    PlayedControllers.bind(client, volume, claim);
    runApp("node-a");
    storage = new PlayedStorage(client);
  }

  /** A volume of the backend on {@code node}, reclaim policy Delete, reserved for the claim. */
  PersistentVolume volume(String name, String handle, String node, String claim) {
    PersistentVolume volume =
        new PersistentVolumeBuilder(ClusterFixtures.volume(name, DRIVER, handle, node, APPS, claim))
            .editSpec()
            .withPersistentVolumeReclaimPolicy("Delete")
            .withStorageClassName(BACKEND)
            .endSpec()
            .build();
    return PlayedControllers.createWithStatus(client, volume);
  }

  @AfterEach
  void stopStorage() {
    if (storage != null) {
      storage.close();
    }
  }

  /** The kubelet running the application's pod on a node. */
  Pod runApp(String node) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(APP_POD)
            .withNamespace(APPS)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("web")
            .withImage("web")
            .endContainer()
            .addNewVolume()
            .withName("data")
            .withNewPersistentVolumeClaim()
            .withClaimName(CLAIM)
            .endPersistentVolumeClaim()
            .endVolume()
            .endSpec()
            .build();
    client.resource(pod).create();
    return PlayedControllers.podRunning(client, pod, "10.1.0.1", true);
  }

  /** The application's pod stopped (a drain, a scale-down): the kubelet is done with it. */
  void stopApp() {
    client.pods().inNamespace(APPS).withName(APP_POD).withGracePeriod(0).delete();
    await("the pod gone", () -> client.pods().inNamespace(APPS).withName(APP_POD).get() == null);
  }

  VolumeMove createMove(String name, String yamlSpec) {
    return VolumeMoves.create(client, APPS, name, yamlSpec);
  }

  VolumeMove move(String name) {
    return VolumeMoves.get(client, APPS, name);
  }

  VolumeMove awaitPhase(String name, MovePhase phase) {
    return VolumeMoves.awaitPhase(client, APPS, name, phase, java.time.Duration.ofSeconds(30));
  }

  PersistentVolumeClaim claim() {
    return client.persistentVolumeClaims().inNamespace(APPS).withName(CLAIM).get();
  }

  PersistentVolume volume(String name) {
    return client.persistentVolumes().withName(name).get();
  }

  /** What {@code kubectl describe volumemove} lists under Events. */
  List<String> moveEvents(String name) {
    VolumeMove move = move(name);
    return DescribedEvents.reasons(
        client, "VolumeMove", APPS, name, move == null ? null : move.getMetadata().getUid());
  }

  /** Until the move's Events hold {@code reasons} in this order (they follow its status). */
  void awaitMoveEvents(String name, String... reasons) {
    await(
        "the Events " + String.join(", ", reasons),
        () -> {
          int next = 0;
          for (String event : moveEvents(name)) {
            if (next < reasons.length && event.equals(reasons[next])) {
              next++;
            }
          }
          return next == reasons.length;
        });
  }

  /** The objects a move makes for itself that still exist. */
  int temporaries(VolumeMove move) {
    String id = move.getMetadata().getUid().replace("-", "").substring(0, 8);
    int count = 0;
    for (String claim : new String[] {"-base", "-cut"}) {
      if (client
              .persistentVolumeClaims()
              .inNamespace(APPS)
              .withName("thinvol-move-" + id + claim)
              .get()
          != null) {
        count++;
      }
    }
    for (String snapshot : new String[] {"-pre", "-cut"}) {
      if (client
              .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshot")
              .inNamespace(APPS)
              .withName("thinvol-move-" + id + snapshot)
              .get()
          != null) {
        count++;
      }
    }
    if (client
            .genericKubernetesResources("snapshot.storage.k8s.io/v1", "VolumeSnapshotContent")
            .withName("thinvol-move-" + id + "-cut")
            .get()
        != null) {
      count++;
    }
    if (client
            .admissionRegistration()
            .v1()
            .validatingAdmissionPolicies()
            .withName("thinvol-move-" + id)
            .get()
        != null) {
      count++;
    }
    if (client
            .admissionRegistration()
            .v1()
            .validatingAdmissionPolicyBindings()
            .withName("thinvol-move-" + id)
            .get()
        != null) {
      count++;
    }
    return count;
  }

  /** The cut-over's admission policy denies the operator's dry runs: no refusal. */
  @Override
  List<StrictApiServer.Decision> refusedOperatorRequests() {
    return VolumeMoves.withoutCutOverDenials(super.refusedOperatorRequests());
  }
}
