package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.StreamSupport;

/**
 * OwnerReferencesPermissionEnforcement (on by default on OpenShift): an owner reference that newly
 * sets {@code blockOwnerDeletion: true} needs {@code update} on the owner's {@code finalizers}
 * subresource.
 */
final class OwnerReferenceAdmission {

  private OwnerReferenceAdmission() {}

  /**
   * The finalizers requests the writer must be allowed to make, one per newly blocking reference.
   *
   * @param plural the resource (plural) of an API group and kind
   */
  static List<ApiRequest> neededPermissions(
      JsonNode newObject, JsonNode oldObject, Function<String, String> plural) {
    Set<String> alreadyBlocking =
        oldObject == null
            ? Set.of()
            : StreamSupport.stream(oldObject.at("/metadata/ownerReferences").spliterator(), false)
                .filter(ref -> ref.path("blockOwnerDeletion").asBoolean(false))
                .map(ref -> ref.path("uid").asText())
                .collect(java.util.stream.Collectors.toSet());
    List<ApiRequest> needed = new ArrayList<>();
    for (JsonNode ref : newObject.at("/metadata/ownerReferences")) {
      if (!ref.path("blockOwnerDeletion").asBoolean(false)
          || alreadyBlocking.contains(ref.path("uid").asText())) {
        continue;
      }
      String apiVersion = ref.path("apiVersion").asText();
      String group =
          apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
      String namespace = newObject.at("/metadata/namespace").asText(null);
      needed.add(
          new ApiRequest(
              "update",
              group,
              plural.apply(group + "/" + ref.path("kind").asText()) + "/finalizers",
              namespace,
              ref.path("name").asText()));
    }
    return needed;
  }

  /** The API server's 403 message for the object being written. */
  static String forbidden(String resource, String group, String name) {
    return resource
        + (group.isEmpty() ? "" : "." + group)
        + " \""
        + name
        + "\" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a"
        + " resource you can't set finalizers on: , <nil>";
  }
}
