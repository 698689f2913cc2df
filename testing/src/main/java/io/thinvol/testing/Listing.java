package io.thinvol.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A list as a real API server answers it: filtered by field selectors on any field (as {@code
 * kubectl describe} lists Events; the mock's store knows only labels and {@code metadata.name}), in
 * the order of the server's storage keys (namespace, then name), not the order the objects were
 * made in.
 */
final class Listing {

  private Listing() {}

  /**
   * @param store answers a list with the selectors it knows
   */
  static MockResponse answer(String path, Function<String, MockResponse> store) {
    int mark = path.indexOf('?');
    Map<String, String> parameters =
        ApiRequest.parameters(mark < 0 ? "" : path.substring(mark + 1));
    String selector = parameters.remove("fieldSelector");
    if (selector == null) {
      return inKeyOrder(store.apply(path), List.of());
    }
    List<String[]> fields = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    for (String requirement : selector.split(",")) {
      String[] pair = requirement.split("==?", 2);
      if (pair[0].equals("metadata.name")) {
        kept.add(requirement);
      } else {
        fields.add(pair);
      }
    }
    if (!kept.isEmpty()) {
      parameters.put("fieldSelector", String.join(",", kept));
    }
    String query =
        parameters.entrySet().stream()
            .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    return inKeyOrder(
        store.apply(
            (mark < 0 ? path : path.substring(0, mark)) + (query.isEmpty() ? "" : "?" + query)),
        fields);
  }

  /** The items that match every field requirement, in key order. */
  private static MockResponse inKeyOrder(MockResponse response, List<String[]> fields) {
    if (response.code() != 200) {
      return response;
    }
    JsonNode body = Serialization.unmarshal(response.getBody().readUtf8(), JsonNode.class);
    if (!body.path("items").isArray()) {
      return response.setBody(Serialization.asJson(body));
    }
    List<JsonNode> items = new ArrayList<>();
    body.path("items").forEach(items::add);
    items.removeIf(
        item ->
            !fields.stream()
                .allMatch(f -> item.at("/" + f[0].replace('.', '/')).asText("").equals(f[1])));
    items.sort(
        Comparator.comparing((JsonNode item) -> item.at("/metadata/namespace").asText(""))
            .thenComparing(item -> item.at("/metadata/name").asText()));
    ArrayNode sorted = ((ObjectNode) body).putArray("items");
    items.forEach(sorted::add);
    return new MockResponse().setResponseCode(response.code()).setBody(Serialization.asJson(body));
  }
}
