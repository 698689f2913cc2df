package io.thinvol.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.thinvol.operator.model.SnapshotContentNode;

/** Sets the node label the node-deployment csi-snapshotter selects on, and nothing else. */
final class NodeLabel {

  private NodeLabel() {}

  /**
   * Patches the label on the object as read (no GET first: its name, and its resourceVersion in the
   * patch). False when the object changed since it was read (409): read it again and decide anew.
   */
  static boolean set(KubernetesClient client, HasMetadata object, String node) {
    try {
      client
          .resource(object)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE), SnapshotContentNode.labelPatch(object, node));
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false;
      }
      throw e;
    }
  }
}
