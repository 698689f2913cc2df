package io.thinvol.driver.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTreeTest {

  private static JsonTree parse(String json) throws IOException {
    return JsonTree.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsMembersByPathAndMissingOnesAsEmpty() throws IOException {
    JsonTree pod =
        parse(
            """
            {"metadata": {"name": "driver-1", "deletionTimestamp": null},
             "status": {"podIP": "10.0.0.7", "phase": "Running"},
             "spec": {"containers": [{"ports": [{"name": "addons", "containerPort": 9070}]}]}}
            """);

    assertThat(pod.isObject()).isTrue();
    assertThat(pod.path("metadata").path("name").asText()).isEqualTo("driver-1");
    assertThat(pod.path("metadata").has("deletionTimestamp")).isTrue();
    assertThat(pod.path("metadata").has("labels")).isFalse();
    assertThat(pod.path("metadata").path("deletionTimestamp").asText("none")).isEqualTo("none");
    assertThat(pod.path("nothing").path("deeper").asText()).isEmpty();
    assertThat(pod.path("nothing").asText("fallback")).isEqualTo("fallback");
    assertThat(pod.path("status").asText("not text")).isEqualTo("not text");
    JsonTree port = pod.path("spec").path("containers").get(0).path("ports").get(0);
    assertThat(port.path("containerPort").asInt()).isEqualTo(9070);
    assertThat(pod.path("spec").path("containers").get(1).isObject()).isFalse();
  }

  @Test
  void iteratesArraysOnly() throws IOException {
    JsonTree status = parse("{\"audiences\": [\"a\", \"b\"], \"user\": {\"username\": \"u\"}}");

    List<String> audiences = new ArrayList<>();
    for (JsonTree audience : status.path("audiences")) {
      audiences.add(audience.asText());
    }
    assertThat(audiences).containsExactly("a", "b");
    assertThat(status.path("audiences").isArray()).isTrue();
    assertThat(status.path("audiences").size()).isEqualTo(2);
    assertThat(status.path("user")).isEmpty();
    assertThat(status.path("missing")).isEmpty();
  }

  @Test
  void convertsScalarsLikeTheClaimsNeed() throws IOException {
    JsonTree claims =
        parse(
            """
            {"exp": 1764000000, "big": 12345678901234, "float": 1.7e9, "huge": 1e30,
             "text": "123", "flag": true, "aud": "api"}
            """);

    assertThat(claims.path("exp").canConvertToLong()).isTrue();
    assertThat(claims.path("exp").asLong()).isEqualTo(1764000000L);
    assertThat(claims.path("big").asLong()).isEqualTo(12345678901234L);
    assertThat(claims.path("float").canConvertToLong()).isTrue();
    assertThat(claims.path("float").asLong()).isEqualTo(1_700_000_000L);
    assertThat(claims.path("huge").canConvertToLong()).isFalse();
    assertThat(claims.path("text").canConvertToLong()).isFalse();
    assertThat(claims.path("missing").canConvertToLong()).isFalse();
    assertThat(claims.path("flag").asBoolean(false)).isTrue();
    assertThat(claims.path("text").asBoolean(false)).isFalse();
    assertThat(claims.path("aud").isTextual()).isTrue();
    assertThat(claims.path("exp").isTextual()).isFalse();
    assertThat(claims.path("exp").asText()).isEqualTo("1764000000");
  }

  @Test
  void emptyInputIsMissingAndBrokenInputFails() throws IOException {
    JsonTree empty = JsonTree.parse(new ByteArrayInputStream(new byte[0]));
    assertThat(empty.isObject()).isFalse();
    assertThat(empty.path("message").asText("")).isEmpty();

    assertThatThrownBy(() -> parse("{\"kind\": ")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> parse("not json")).isInstanceOf(IOException.class);
  }
}
