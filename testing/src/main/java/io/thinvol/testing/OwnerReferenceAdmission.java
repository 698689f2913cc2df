package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OwnerReferencesPermissionEnforcement (on by default on OpenShift), as Kubernetes'
 * plugin/pkg/admission/gc decides: an update that changes owner references needs {@code delete} on
 * the object written; an owner reference that newly sets {@code blockOwnerDeletion: true} needs
 * {@code update} on the owner's {@code finalizers} subresource, in the dependent's namespace when
 * the owner is namespaced and at the cluster scope when it is not.
 */
final class OwnerReferenceAdmission {

  private OwnerReferenceAdmission() {}

  /**
   * The 403 message for the write of {@code newObject} (over {@code oldObject}, null on create) by
   * {@code user}, or empty when admitted.
   *
   * @param request the request as authorised (resource, namespace, name)
   */
  static Optional<String> refusal(
      String user,
      Rbac rbac,
      ApiRequest request,
      JsonNode newObject,
      JsonNode oldObject,
      CustomResources kinds) {
    if (!changesOwners(newObject, oldObject)) {
      return Optional.empty();
    }
    String[] resource = request.resource().split("/", 2);
    String name = newObject.at("/metadata/name").asText();
    if (oldObject != null
        && !rbac.allows(
            user,
            new ApiRequest(
                "delete", request.group(), request.resource(), request.namespace(), name))) {
      return Optional.of(
          forbidden(resource[0], request.group(), name)
              + "cannot set an ownerRef on a resource you can't delete: , <nil>");
    }
    for (ApiRequest needed : finalizerUpdates(newObject, oldObject, kinds)) {
      if (!rbac.allows(user, needed)) {
        return Optional.of(
            forbidden(resource[0], request.group(), name)
                + "cannot set blockOwnerDeletion if an ownerReference refers to a resource you"
                + " can't set finalizers on: , <nil>");
      }
    }
    return Optional.empty();
  }

  /** The plugin compares the lists in order: any difference is a change. */
  private static boolean changesOwners(JsonNode newObject, JsonNode oldObject) {
    JsonNode now = newObject.at("/metadata/ownerReferences");
    if (oldObject == null) {
      return now.size() > 0;
    }
    JsonNode before = oldObject.at("/metadata/ownerReferences");
    return now.size() != before.size() || (now.size() > 0 && !now.equals(before));
  }

  /** One finalizers update per reference that blocks now and did not before (matched by uid). */
  static List<ApiRequest> finalizerUpdates(
      JsonNode newObject, JsonNode oldObject, CustomResources kinds) {
    Map<String, Boolean> blockedBefore = new HashMap<>();
    if (oldObject != null) {
      for (JsonNode ref : oldObject.at("/metadata/ownerReferences")) {
        blockedBefore.put(
            ref.path("uid").asText(), ref.path("blockOwnerDeletion").asBoolean(false));
      }
    }
    List<ApiRequest> needed = new ArrayList<>();
    for (JsonNode ref : newObject.at("/metadata/ownerReferences")) {
      if (!ref.path("blockOwnerDeletion").asBoolean(false)
          || blockedBefore.getOrDefault(ref.path("uid").asText(), false)) {
        continue;
      }
      String apiVersion = ref.path("apiVersion").asText();
      String group =
          apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      String groupAndKind = group + "/" + ref.path("kind").asText();
      needed.add(
          new ApiRequest(
              "update",
              group,
              kinds.plural(groupAndKind) + "/finalizers",
              kinds.namespaced(groupAndKind)
                  ? newObject.at("/metadata/namespace").asText(null)
                  : null,
              ref.path("name").asText()));
    }
    return needed;
  }

  private static String forbidden(String resource, String group, String name) {
    return resource + (group.isEmpty() ? "" : "." + group) + " \"" + name + "\" is forbidden: ";
  }
}
