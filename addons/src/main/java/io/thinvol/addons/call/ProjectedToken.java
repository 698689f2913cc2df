package io.thinvol.addons.call;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Base64;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The token the addons send to the drivers: a projected ServiceAccount token of the operator's pod,
 * issued for the addons audience only and short-lived, so that what a node sees is worth nothing
 * against the API server. The kubelet rotates the file (an atomic swap of the directory it links
 * to): it is read again whenever it changed. A token not issued for the audience is never sent:
 * pointing the file at the pod's API-server token fails every call instead of leaking it.
 */
public final class ProjectedToken implements Supplier<String> {

  /** Where the operator's Deployment mounts it. */
  public static final Path DEFAULT_FILE = Path.of("/var/run/secrets/thinvol.io/addons/token");

  /** The audience it is issued for by default; the drivers' {@code --addons-token-audience}. */
  public static final String DEFAULT_AUDIENCE = "addons.thinvol.io";

  private static final ObjectMapper JSON = new ObjectMapper();

  private record Read(Object fileKey, long modifiedMillis, String token) {}

  private final Path file;
  private final String audience;
  private Read last;

  public ProjectedToken(Path file, String audience) {
    this.file = file;
    this.audience = audience;
  }

  /**
   * @throws TokenUnreadable when the file cannot be read or holds no token for the audience
   */
  @Override
  public synchronized String get() {
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      if (last != null
          && Objects.equals(last.fileKey(), attributes.fileKey())
          && last.modifiedMillis() == attributes.lastModifiedTime().toMillis()) {
        return last.token();
      }
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      requireAudience(token);
      last = new Read(attributes.fileKey(), attributes.lastModifiedTime().toMillis(), token);
      return token;
    } catch (IOException e) {
      throw new TokenUnreadable(
          "the operator cannot read its token file "
              + file
              + ": "
              + why(e)
              + " (the operator's pod needs a projected ServiceAccount token with audience '"
              + audience
              + "' there)",
          e);
    }
  }

  private static String why(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private void requireAudience(String token) {
    if (!audiences(token).contains(audience)) {
      throw new TokenUnreadable(
          "the operator's token file "
              + file
              + " is not issued for audience '"
              + audience
              + "' and is not sent: mount a projected ServiceAccount token with that audience"
              + " (THINVOL_ADDONS_TOKEN_FILE, THINVOL_ADDONS_TOKEN_AUDIENCE)",
          null);
    }
  }

  /** The {@code aud} claim (a string or an array); the signature is the drivers' business. */
  private static Set<String> audiences(String token) {
    String[] parts = token.split("\\.");
    Set<String> found = new HashSet<>();
    if (parts.length != 3) {
      return found;
    }
    try {
      JsonNode aud = JSON.readTree(Base64.getUrlDecoder().decode(parts[1])).path("aud");
      if (aud.isTextual()) {
        found.add(aud.asText());
      }
      aud.forEach(a -> found.add(a.asText()));
    } catch (IOException | IllegalArgumentException e) {
      // Not a JWT: no audience.
    }
    return found;
  }
}
