package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.thinvol.api.v1alpha1.StorageBackend;
import io.thinvol.operator.model.Names;
import io.thinvol.operator.model.StorageClassModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * StorageClasses the spec names that already exist and are not this backend's: taking one over
 * would change how someone else's claims are provisioned, so the backend is refused instead.
 */
final class StorageClassConflicts {

  private StorageClassConflicts() {}

  /** One sentence per conflicting class; empty when there is none. */
  static List<String> of(KubernetesClient client, StorageBackend backend) {
    List<String> conflicts = new ArrayList<>();
    for (StorageClass wanted : StorageClassModel.desired(backend)) {
      String name = wanted.getMetadata().getName();
      StorageClass existing = client.storage().v1().storageClasses().withName(name).get();
      if (existing == null) {
        continue;
      }
      Map<String, String> labels = existing.getMetadata().getLabels();
      String owner = labels == null ? null : labels.get(Names.BACKEND_LABEL);
      if (!backend.getMetadata().getName().equals(owner)) {
        conflicts.add(
            "StorageClass "
                + name
                + (owner == null
                    ? " already exists (provisioner " + existing.getProvisioner() + ")"
                    : " belongs to StorageBackend " + owner));
      }
    }
    return conflicts;
  }
}
