package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.Optional;

/**
 * A delete's preconditions ({@code DeleteOptions.preconditions}: uid, resourceVersion), as the API
 * server checks them against the object in store: 409 Conflict when it differs, so a client can
 * delete an object only as it read it. The mock's own delete ignores the request's body.
 */
final class DeletePreconditions {

  private DeletePreconditions() {}

  /**
   * @param body the delete's body (DeleteOptions), possibly empty
   * @param stored the object in store; null when there is none (the delete answers 404 anyway)
   */
  static Optional<Refusal> refusal(String body, JsonNode stored, ApiRequest request) {
    if (body == null || body.isBlank() || stored == null) {
      return Optional.empty();
    }
    JsonNode preconditions = Serialization.unmarshal(body, JsonNode.class).path("preconditions");
    String uid = preconditions.path("uid").asText("");
    String resourceVersion = preconditions.path("resourceVersion").asText("");
    String storedUid = stored.at("/metadata/uid").asText("");
    String storedVersion = stored.at("/metadata/resourceVersion").asText("");
    if (!uid.isEmpty() && !uid.equals(storedUid)) {
      return Optional.of(
          conflict(
              request,
              "Precondition failed: UID in precondition: "
                  + uid
                  + ", UID in object meta: "
                  + storedUid));
    }
    if (!resourceVersion.isEmpty() && !resourceVersion.equals(storedVersion)) {
      return Optional.of(
          conflict(
              request,
              "the ResourceVersion in the precondition ("
                  + resourceVersion
                  + ") does not match the ResourceVersion in record ("
                  + storedVersion
                  + "). The object might have been modified"));
    }
    return Optional.empty();
  }

  private static Refusal conflict(ApiRequest request, String why) {
    String qualified =
        request.group().isEmpty() ? request.resource() : request.resource() + "." + request.group();
    return new Refusal(
        409,
        "Conflict",
        "Operation cannot be fulfilled on " + qualified + " \"" + request.name() + "\": " + why,
        Map.of("name", request.name(), "group", request.group(), "kind", request.resource()));
  }
}
