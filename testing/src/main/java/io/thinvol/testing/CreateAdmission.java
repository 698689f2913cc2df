package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the admission chain decides of a create before the store sees it: the refusal of a
 * ValidatingAdmissionPolicy in force ({@link AdmissionPolicies}); and a dry run's answer, which the
 * mock would store: 409 when the name is taken, else the object, never stored.
 */
final class CreateAdmission {

  /** Where a decision goes (the server's record of non-admin requests). */
  interface Recorder {
    void record(String user, ApiRequest what, int code, String message);
  }

  private final Function<String, MockResponse> storedGet;
  private final Recorder recorder;

  /**
   * @param storedGet the store's answer to a GET of a path
   */
  CreateAdmission(Function<String, MockResponse> storedGet, Recorder recorder) {
    this.storedGet = storedGet;
    this.recorder = recorder;
  }

  /** The answer to a create if admission decides it, else empty: the store takes it. */
  Optional<MockResponse> admit(String user, RecordedRequest request, ApiRequest what) {
    String body = new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (body.isBlank()) {
      return Optional.empty();
    }
    JsonNode object = Serialization.unmarshal(body, JsonNode.class);
    String query = request.getPath().contains("?") ? request.getPath().split("\\?", 2)[1] : "";
    boolean dryRun = ApiRequest.parameters(query).containsKey("dryRun");
    String group = request.getHeader("Impersonate-Group");
    Optional<Refusal> refused =
        AdmissionPolicies.create(
            path -> {
              MockResponse stored = storedGet.apply(path);
              return stored.code() == 200
                  ? AdmissionPolicies.parse(stored.getBody().readUtf8())
                  : null;
            },
            user,
            group == null ? List.of() : List.of(group),
            what,
            apiVersion(request.getPath()),
            object,
            dryRun);
    if (refused.isPresent()) {
      recorder.record(user, what, refused.get().code, refused.get().getMessage());
      return Optional.of(refused.get().response());
    }
    if (!dryRun) {
      return Optional.empty();
    }
    String name = object.at("/metadata/name").asText();
    String path = request.getPath().split("\\?", 2)[0] + "/" + name;
    if (storedGet.apply(path).code() == 200) {
      String qualified =
          what.group().isEmpty() ? what.resource() : what.resource() + "." + what.group();
      Refusal exists =
          new Refusal(
              409,
              "AlreadyExists",
              qualified + " \"" + name + "\" already exists",
              Map.of("name", name, "group", what.group(), "kind", what.resource()));
      recorder.record(user, what, 409, exists.getMessage());
      return Optional.of(exists.response());
    }
    recorder.record(user, what, 201, null);
    return Optional.of(new MockResponse().setResponseCode(201).setBody(body));
  }

  /** The version of a resource path: {@code /api/v1/...} or {@code /apis/<group>/<version>/...}. */
  static String apiVersion(String path) {
    String[] parts = path.replaceAll("^/+", "").split("[/?]");
    return parts[0].equals("api") ? parts[1] : parts[2];
  }
}
