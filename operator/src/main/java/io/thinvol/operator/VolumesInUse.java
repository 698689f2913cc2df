package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.StorageClassModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The claims and volumes that still use a backend, named the way a person finds them. */
final class VolumesInUse {

  private VolumesInUse() {}

  static List<String> of(KubernetesClient client, StorageBackend backend) {
    Set<String> classes =
        StorageClassModel.desired(backend).stream()
            .map(c -> c.getMetadata().getName())
            .collect(Collectors.toSet());
    List<String> users = new ArrayList<>();
    for (PersistentVolumeClaim claim :
        client.persistentVolumeClaims().inAnyNamespace().list().getItems()) {
      if (classes.contains(claim.getSpec().getStorageClassName())) {
        users.add(
            "PVC " + claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName());
      }
    }
    for (PersistentVolume volume : client.persistentVolumes().list().getItems()) {
      if (volume.getSpec().getCsi() != null
          && backend.driverName().equals(volume.getSpec().getCsi().getDriver())) {
        users.add("PV " + volume.getMetadata().getName());
      }
    }
    return users;
  }
}
