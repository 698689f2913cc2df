package io.thinvol.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.thinvol.testing.SchemaValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The validator the bundle and docs checks rely on finds what the API server would refuse. */
class SchemaValidatorTest {

  private final CrdSchemas schemas = new CrdSchemas(GeneratedFilesTest.ROOT.resolve("crds"));

  @Test
  void aValidJobPasses() {
    assertThat(problems(job("backOffLimit: 6\n  mode: Auto"))).isEmpty();
  }

  @Test
  void typosWrongTypesEnumsBoundsAndMissingFieldsAreFound() {
    assertThat(problems(job("backoffLimit: 6")))
        .containsExactly("spec.backoffLimit is not a field of this kind");
    assertThat(problems(job("backOffLimit: \"6\"")))
        .containsExactly("spec.backOffLimit must be an integer, not \"6\"");
    assertThat(problems(job("backOffLimit: 61")))
        .containsExactly("spec.backOffLimit is 61, above the maximum 60");
    assertThat(problems(job("timeout: 5")))
        .containsExactly("spec.timeout is 5, below the minimum 60");
    assertThat(problems(job("mode: Sometimes")))
        .containsExactly(
            "spec.mode is \"Sometimes\", not one of [\"Auto\",\"ControllerOnly\",\"NodeOnly\"]");
    JsonNode noTarget =
        CrdSchemas.documents(
                "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: x\nspec:\n  mode: Auto\n")
            .get(0);
    assertThat(SchemaValidator.validate(schemas.of(noTarget).orElseThrow(), noTarget))
        .containsExactly("spec lacks the required field target");
  }

  private List<String> problems(JsonNode object) {
    return SchemaValidator.validate(schemas.of(object).orElseThrow(), object);
  }

  private static JsonNode job(String extra) {
    return CrdSchemas.documents(
            "apiVersion: thinvol.io/v1alpha1\nkind: ReclaimSpaceJob\nmetadata:\n  name: x\nspec:\n"
                + "  target:\n    persistentVolumeClaim: data\n  "
                + extra
                + "\n")
        .get(0);
  }
}
