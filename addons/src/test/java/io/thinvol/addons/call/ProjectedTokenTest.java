package io.thinvol.addons.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectedTokenTest {

  private static final String AUDIENCE = ProjectedToken.DEFAULT_AUDIENCE;

  @TempDir Path dir;

  private static String jwt(String audience, String id) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString("{\"alg\":\"RS256\",\"kid\":\"k\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b64.encodeToString(
            ("{\"aud\":[\"" + audience + "\"],\"jti\":\"" + id + "\",\"exp\":2000000000}")
                .getBytes(StandardCharsets.UTF_8))
        + ".c2lnbmF0dXJl";
  }

  /**
   * Writes the token as the kubelet does: a new timestamped directory, then {@code ..data} swapped
   * atomically to it; {@code token} links through {@code ..data}.
   */
  private Path project(String token, String version) throws IOException {
    Path data = Files.createDirectory(dir.resolve("..v" + version));
    Files.writeString(data.resolve("token"), token);
    Path link = dir.resolve("..data_tmp");
    Files.createSymbolicLink(link, data.getFileName());
    Files.move(link, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    Path file = dir.resolve("token");
    if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      Files.createSymbolicLink(file, Path.of("..data/token"));
    }
    return file;
  }

  @Test
  @DisplayName("The token is read once, and again after the kubelet rotated it")
  void rereadAfterRotation() throws IOException {
    String first = jwt(AUDIENCE, "1");
    Path file = project(first, "1");
    ProjectedToken token = new ProjectedToken(file, AUDIENCE);
    assertThat(token.get()).isEqualTo(first);
    assertThat(token.get()).isEqualTo(first);

    String second = jwt(AUDIENCE, "2");
    project(second, "2");
    assertThat(token.get()).isEqualTo(second);
  }

  @Test
  @DisplayName("A token for another audience (the API server's) is never handed out")
  void apiServerTokenIsNotSent() throws IOException {
    String apiServer = jwt("https://kubernetes.default.svc.cluster.local", "1");
    Path file = project(apiServer, "1");
    ProjectedToken token = new ProjectedToken(file, AUDIENCE);
    assertThatThrownBy(token::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not issued for audience '" + AUDIENCE + "'")
        .hasMessageNotContaining(apiServer);
    Files.writeString(dir.resolve("plain"), "not-a-jwt");
    assertThatThrownBy(() -> new ProjectedToken(dir.resolve("plain"), AUDIENCE).get())
        .hasMessageContaining("not issued for audience");
  }

  @Test
  @DisplayName("A missing file says what to mount")
  void missingFile() {
    assertThatThrownBy(() -> new ProjectedToken(dir.resolve("absent"), AUDIENCE).get())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("projected ServiceAccount token with audience '" + AUDIENCE + "'");
  }
}
