package io.thinvol.testing;

import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Map;
import java.util.Optional;

/** {@code /apis} and the resource lists of custom groups, as {@link CrdServing} serves them. */
final class Discovery {

  private Discovery() {}

  /** The discovery answer for a path, or empty when the path is not discovery's. */
  static Optional<MockResponse> answer(CrdServing crdServing, String pathAndQuery) {
    String path = pathAndQuery.split("\\?", 2)[0].replaceAll("/+$", "");
    String[] parts = path.split("/");
    if (path.equals("/apis")) {
      return Optional.of(new MockResponse().setResponseCode(200).setBody(crdServing.groupList()));
    }
    if (parts.length == 4 && parts[1].equals("apis") && !CrdServing.builtIn(parts[2])) {
      return Optional.of(
          crdServing
              .resourceList(parts[2], parts[3])
              .map(list -> new MockResponse().setResponseCode(200).setBody(list))
              .orElseGet(Discovery::notFound));
    }
    return Optional.empty();
  }

  /** A path the server does not serve. */
  static MockResponse notFound() {
    return new MockResponse()
        .setResponseCode(404)
        .setBody(
            Rbac.status(
                404, "NotFound", "the server could not find the requested resource", Map.of()));
  }
}
