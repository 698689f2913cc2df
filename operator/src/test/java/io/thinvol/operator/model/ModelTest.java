package io.thinvol.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.thinvol.api.v1alpha1.StorageBackend;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The desired objects of a StorageBackend: pure functions, checked field by field. */
class ModelTest {

  static final Settings SETTINGS =
      new Settings("thinvol-system", "quay.io/thinvol/thinvol:0.1.0", false, true);

  private static StorageBackend backend(String yaml) {
    return Serialization.unmarshal(
        "apiVersion: thinvol.io/v1alpha1\nkind: StorageBackend\n" + yaml, StorageBackend.class);
  }

  private static final StorageBackend MINIMAL = backend("metadata:\n  name: local\n");

  private static final StorageBackend FULL =
      backend(
          """
          metadata:
            name: fast
          spec:
            sparseFile:
              dataDir: /mnt/ssd/thinvol
              filesystem: xfs
              overprovisionRatio: 3.0
            nodeSelector:
              storage: ssd
            tolerations:
            - key: storage
              operator: Exists
            kubeletDir: /var/data/kubelet
            logLevel: DEBUG
            images:
              provisioner: mirror.example/csi-provisioner:v6.3.0
            storageClasses:
            - name: fast
              default: true
              reclaimPolicy: Retain
              allowVolumeExpansion: false
              mountOptions: [noatime]
            - name: fast-ext4
              parameters:
                csi.storage.k8s.io/fstype: ext4
          """);

  private static Container container(DaemonSet daemonSet, String name) {
    return daemonSet.getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name));
  }

  private static VolumeMount mountAt(Container container, String path) {
    return container.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(path))
        .findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " does not mount " + path));
  }

  @Test
  @DisplayName("CSIDriver: no attach, pod info, fsGroup File, capacity tracking")
  void csiDriver() {
    CSIDriver driver = CsiDriverModel.desired(MINIMAL);
    assertThat(driver.getMetadata().getName()).isEqualTo("local.thinvol.io");
    assertThat(driver.getSpec().getAttachRequired()).isFalse();
    assertThat(driver.getSpec().getPodInfoOnMount()).isTrue();
    assertThat(driver.getSpec().getFsGroupPolicy()).isEqualTo("File");
    assertThat(driver.getSpec().getStorageCapacity()).isTrue();
    CSIDriver changed = CsiDriverModel.desired(MINIMAL);
    assertThat(CsiDriverModel.needsRecreate(driver, changed)).isFalse();
    changed.getSpec().setAttachRequired(true);
    assertThat(CsiDriverModel.needsRecreate(driver, changed)).isTrue();
  }

  @Test
  @DisplayName("StorageClasses: WaitForFirstConsumer, the driver as provisioner, spec honoured")
  void storageClasses() {
    List<StorageClass> defaults = StorageClassModel.desired(MINIMAL);
    assertThat(defaults).hasSize(1);
    StorageClass only = defaults.get(0);
    assertThat(only.getMetadata().getName()).isEqualTo("local");
    assertThat(only.getProvisioner()).isEqualTo("local.thinvol.io");
    assertThat(only.getVolumeBindingMode()).isEqualTo("WaitForFirstConsumer");
    assertThat(only.getReclaimPolicy()).isEqualTo("Delete");
    assertThat(only.getAllowVolumeExpansion()).isTrue();
    assertThat(only.getParameters()).containsEntry("csi.storage.k8s.io/fstype", "ext4");
    assertThat(only.getMetadata().getAnnotations())
        .as("the automatic reclaim, on by default, is impossible to miss")
        .containsOnlyKeys("description")
        .extractingByKey("description")
        .asString()
        .contains("reclaimed automatically (@weekly)", "reclaimspace.thinvol.io/enable=false");

    List<StorageClass> full = StorageClassModel.desired(FULL);
    assertThat(full)
        .extracting(c -> c.getMetadata().getName())
        .containsExactly("fast", "fast-ext4");
    assertThat(full.get(0).getMetadata().getAnnotations())
        .containsEntry("storageclass.kubernetes.io/is-default-class", "true");
    assertThat(full.get(0).getReclaimPolicy()).isEqualTo("Retain");
    assertThat(full.get(0).getAllowVolumeExpansion()).isFalse();
    assertThat(full.get(0).getMountOptions()).containsExactly("noatime");
    assertThat(full.get(0).getParameters()).containsEntry("csi.storage.k8s.io/fstype", "xfs");
    assertThat(full.get(1).getParameters()).containsEntry("csi.storage.k8s.io/fstype", "ext4");
  }

  @Test
  @DisplayName("RBAC: exactly the verbs the sidecars and the driver use, no wildcards")
  void rbac() {
    List<PolicyRule> rules = RbacModel.clusterRole(SETTINGS).getRules();
    assertThat(rules)
        .allSatisfy(
            rule -> {
              assertThat(rule.getVerbs()).doesNotContain("*");
              assertThat(rule.getResources()).doesNotContain("*");
              assertThat(rule.getApiGroups()).doesNotContain("*");
            });
    assertThat(rules)
        .anySatisfy(
            rule -> {
              assertThat(rule.getResources()).containsExactly("persistentvolumes");
              assertThat(rule.getVerbs()).contains("create", "delete");
            })
        .anySatisfy(
            rule -> {
              assertThat(rule.getResources()).containsExactly("tokenreviews");
              assertThat(rule.getVerbs()).containsExactly("create");
            })
        .noneSatisfy(rule -> assertThat(rule.getResources()).contains("secrets"));
    assertThat(RbacModel.role(MINIMAL, SETTINGS).getRules())
        .anySatisfy(rule -> assertThat(rule.getResources()).containsExactly("csistoragecapacities"))
        .anySatisfy(rule -> assertThat(rule.getResources()).containsExactly("leases"));
    var binding = RbacModel.clusterRoleBinding(List.of(MINIMAL), SETTINGS);
    assertThat(binding.getMetadata().getName()).isEqualTo(Names.NODE_CLUSTER_ROLE_BINDING);
    assertThat(binding.getRoleRef().getName()).isEqualTo(Names.NODE_CLUSTER_ROLE);
    assertThat(binding.getSubjects().get(0).getNamespace()).isEqualTo("thinvol-system");
    assertThat(binding.getSubjects().get(0).getName())
        .isEqualTo(RbacModel.serviceAccount(MINIMAL, SETTINGS).getMetadata().getName());
  }

  @Test
  @DisplayName("DaemonSet: kubelet dirs with Bidirectional propagation, /dev, the data dir")
  void daemonSetMounts() {
    DaemonSet daemonSet = NodeDaemonSetModel.desired(FULL, SETTINGS, true);
    PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
    Container driver = container(daemonSet, "driver");
    assertThat(driver.getSecurityContext().getPrivileged()).isTrue();
    assertThat(driver.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(mountAt(driver, "/tmp").getName()).isEqualTo("tmp");
    assertThat(mountAt(driver, "/var/data/kubelet/pods").getMountPropagation())
        .isEqualTo("Bidirectional");
    assertThat(mountAt(driver, "/var/data/kubelet/plugins").getMountPropagation())
        .isEqualTo("Bidirectional");
    assertThat(mountAt(driver, "/dev").getName()).isEqualTo("dev-dir");
    assertThat(mountAt(driver, "/mnt/ssd/thinvol").getName()).isEqualTo("data-dir");
    assertThat(mountAt(driver, "/etc/thinvol/tls").getReadOnly()).isTrue();
    assertThat(pod.getVolumes())
        .extracting(
            Volume::getName, v -> v.getHostPath() == null ? null : v.getHostPath().getPath())
        .contains(
            org.assertj.core.groups.Tuple.tuple(
                "socket-dir", "/var/data/kubelet/plugins/fast.thinvol.io"),
            org.assertj.core.groups.Tuple.tuple(
                "registration-dir", "/var/data/kubelet/plugins_registry"),
            org.assertj.core.groups.Tuple.tuple("data-dir", "/mnt/ssd/thinvol"));
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals("addons-tls"))
        .singleElement()
        .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("thinvol-addons-tls"));
  }

  @Test
  @DisplayName("DaemonSet: the driver's flags and every sidecar's, from the spec")
  void daemonSetFlags() {
    DaemonSet daemonSet = NodeDaemonSetModel.desired(FULL, SETTINGS, true);
    assertThat(container(daemonSet, "driver").getArgs())
        .contains(
            "--driver-name=fast.thinvol.io",
            "--node-id=$(NODE_NAME)",
            "--data-dir=/mnt/ssd/thinvol",
            "--overprovision-ratio=3.0",
            "--expansion=node",
            "--log-level=DEBUG",
            "--addons-port=9070",
            "--addons-token-audience=addons.thinvol.io");
    assertThat(container(daemonSet, "driver").getImage()).isEqualTo(SETTINGS.images().driver());
    assertThat(container(daemonSet, "node-driver-registrar").getArgs())
        .contains("--kubelet-registration-path=/var/data/kubelet/plugins/fast.thinvol.io/csi.sock");
    Container provisioner = container(daemonSet, "csi-provisioner");
    assertThat(provisioner.getImage()).isEqualTo("mirror.example/csi-provisioner:v6.3.0");
    assertThat(provisioner.getArgs())
        .contains(
            "--node-deployment=true",
            "--strict-topology=true",
            "--enable-capacity=true",
            "--capacity-ownerref-level=1",
            "--default-fstype=xfs");
    assertThat(provisioner.getEnv())
        .extracting(e -> e.getName())
        .contains("NODE_NAME", "NAMESPACE", "POD_NAME");
    assertThat(container(daemonSet, "csi-resizer").getArgs()).contains("--leader-election=true");
    assertThat(container(daemonSet, "csi-snapshotter").getArgs())
        .contains("--node-deployment=true");
    assertThat(
            NodeDaemonSetModel.desired(FULL, SETTINGS, false)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers())
        .extracting(Container::getName)
        .doesNotContain("csi-snapshotter");
  }

  @Test
  @DisplayName("DaemonSet: placement, identity, rollout and probes fully specified")
  void daemonSetPod() {
    DaemonSet daemonSet = NodeDaemonSetModel.desired(FULL, SETTINGS, true);
    PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
    assertThat(daemonSet.getMetadata().getNamespace()).isEqualTo("thinvol-system");
    assertThat(daemonSet.getSpec().getSelector().getMatchLabels())
        .isEqualTo(daemonSet.getSpec().getTemplate().getMetadata().getLabels());
    assertThat(
            daemonSet
                .getSpec()
                .getUpdateStrategy()
                .getRollingUpdate()
                .getMaxUnavailable()
                .getIntVal())
        .isEqualTo(1);
    assertThat(pod.getNodeSelector())
        .containsEntry("storage", "ssd")
        .containsEntry("kubernetes.io/os", "linux");
    assertThat(pod.getTolerations()).extracting(t -> t.getKey()).containsExactly("storage");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getServiceAccountName())
        .isEqualTo(RbacModel.serviceAccount(FULL, SETTINGS).getMetadata().getName());
    for (Container container : pod.getContainers()) {
      for (var probe :
          java.util.Arrays.asList(
              container.getStartupProbe(),
              container.getLivenessProbe(),
              container.getReadinessProbe())) {
        if (probe != null) {
          // not written: the API server stores no zero initial delay, so a 0 would never match
          assertThat(probe.getInitialDelaySeconds()).isNull();
          assertThat(probe.getPeriodSeconds()).isNotNull();
          assertThat(probe.getFailureThreshold()).isNotNull();
          assertThat(probe.getTimeoutSeconds()).isNotNull();
          assertThat(probe.getSuccessThreshold()).isNotNull();
          assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTP");
        }
      }
      if (container.getEnv() != null) {
        container.getEnv().stream()
            .filter(e -> e.getValueFrom() != null)
            .forEach(
                e -> assertThat(e.getValueFrom().getFieldRef().getApiVersion()).isEqualTo("v1"));
      }
    }
  }

  @Test
  @DisplayName("Defaults apply when the spec leaves whole sections out; images list is complete")
  void defaults() {
    Effective effective = Effective.of(MINIMAL);
    assertThat(effective.dataDir()).isEqualTo("/var/lib/thinvol/local");
    assertThat(effective.filesystem()).isEqualTo("ext4");
    assertThat(effective.overprovisionRatio()).isEqualTo(1.0);
    assertThat(effective.kubeletDir()).isEqualTo("/var/lib/kubelet");
    DaemonSet daemonSet = NodeDaemonSetModel.desired(MINIMAL, SETTINGS, false);
    assertThat(Images.defaults(SETTINGS.operatorImage()))
        .containsAll(
            daemonSet.getSpec().getTemplate().getSpec().getContainers().stream()
                .map(Container::getImage)
                .toList());
  }

  @Test
  @DisplayName("A crash-looping driver pod is named in status with its container's reason")
  void nodeProblems() {
    Pod crashing =
        new PodBuilder()
            .withNewMetadata()
            .withName("thinvol-local-node-x")
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-c")
            .endSpec()
            .withNewStatus()
            .addNewContainerStatus()
            .withName("driver")
            .withReady(false)
            .withNewState()
            .withNewWaiting()
            .withReason("CrashLoopBackOff")
            .withMessage("back-off 5m0s")
            .endWaiting()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build();
    Pod pending = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
    assertThat(NodeProblems.of(MINIMAL, Set.of("node-c"), List.of(crashing, pending)))
        .singleElement()
        .satisfies(
            problem -> {
              assertThat(problem.getNode()).isEqualTo("node-c");
              assertThat(problem.getProblem())
                  .isEqualTo(
                      "driver pod thinvol-local-node-x is not ready: driver is waiting"
                          + " (CrashLoopBackOff: back-off 5m0s)");
            });
  }

  @Test
  @DisplayName("Two backends on one data directory: the newer is refused, the older is not")
  void overlappingDataDirs() {
    StorageBackend older =
        backend(
            "metadata:\n  name: a\n  creationTimestamp: '2026-01-01T00:00:00Z'\n"
                + "spec:\n  sparseFile:\n    dataDir: /srv/thin\n");
    StorageBackend newer =
        backend(
            "metadata:\n  name: b\n  creationTimestamp: '2026-02-01T00:00:00Z'\n"
                + "spec:\n  sparseFile:\n    dataDir: /srv/thin/b\n");
    List<StorageBackend> all = List.of(older, newer);
    assertThat(SpecProblems.of(older, all)).isEmpty();
    assertThat(SpecProblems.of(newer, all))
        .containsExactly(
            "spec.sparseFile.dataDir /srv/thin/b overlaps /srv/thin of StorageBackend a; each"
                + " backend needs a directory of its own");
    assertThat(SpecProblems.of(MINIMAL, all)).as("the default directory is per backend").isEmpty();
  }

  @Test
  @DisplayName("System directories and kubelet-relative data directories are refused")
  void unsafeDirectories() {
    assertThat(
            SpecProblems.of(
                backend("metadata:\n  name: x\nspec:\n  sparseFile:\n    dataDir: /etc\n"),
                List.of()))
        .containsExactly("spec.sparseFile.dataDir must not be the system directory /etc");
    assertThat(
            SpecProblems.of(
                backend(
                    "metadata:\n  name: x\nspec:\n  sparseFile:\n"
                        + "    dataDir: /var/lib/kubelet/thin\n"),
                List.of()))
        .containsExactly("spec.sparseFile.dataDir must not be inside the kubelet directory");
    assertThat(SpecProblems.of(FULL, List.of())).isEmpty();
  }

  @Test
  @DisplayName("Alert thresholds the schema would refuse are refused where it was not applied")
  void badAlertThresholds() {
    assertThat(
            SpecProblems.of(
                backend(
                    "metadata:\n  name: x\nspec:\n  monitoring:\n"
                        + "    dataDirWarningPercent: 95\n    dataDirCriticalPercent: 90\n"
                        + "    fillPredictionHours: 0\n"),
                List.of()))
        .containsExactly(
            "spec.monitoring.fillPredictionHours must be from 1 to 168, not 0",
            "spec.monitoring.dataDirWarningPercent must be below dataDirCriticalPercent");
    assertThat(
            SpecProblems.of(
                backend(
                    "metadata:\n  name: x\nspec:\n  monitoring:\n    dataDirWarningPercent: 90\n"),
                List.of()))
        .as("against the default critical threshold, 90")
        .containsExactly(
            "spec.monitoring.dataDirWarningPercent must be below dataDirCriticalPercent");
  }
}
