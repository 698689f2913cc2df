package io.thinvol.driver.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.thinvol.driver.core.CsiException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestsTest {

  @Test
  void pathsMustBeAbsoluteAndNormalised() {
    assertThat(Requests.path("/var/lib/kubelet/pods/x/mount", "p"))
        .isEqualTo(Path.of("/var/lib/kubelet/pods/x/mount"));
    assertThat(Requests.path("/a/b/", "p")).isEqualTo(Path.of("/a/b"));
    for (String bad :
        List.of("", "a/b", "/", "/a/../b", "/a//b", "/./a", "/a/.", "/a\u0000", "/a\tb")) {
      assertThatThrownBy(() -> Requests.path(bad, "p"))
          .isInstanceOfSatisfying(
              CsiException.class,
              e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
  }

  @Test
  void idsOutsideTheFormatNameNothing() {
    assertThat(Requests.volumeId("vol-0123456789abcdef0123456789abcdef"))
        .isEqualTo("vol-0123456789abcdef0123456789abcdef");
    assertThatThrownBy(() -> Requests.volumeId("vol-../x"))
        .isInstanceOfSatisfying(
            CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.NOT_FOUND));
    assertThatThrownBy(() -> Requests.volumeId(""))
        .isInstanceOfSatisfying(
            CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  @Test
  void shownValuesAreShortAndPrintable() {
    assertThat(Requests.shown("a\u0000b")).isEqualTo("'a\\x00b'");
    assertThat(Requests.shown("x".repeat(10_000)))
        .hasSizeLessThan(120)
        .contains("10000 characters");
  }

  @Test
  void pagesResumeAfterTheLastIdReturned() {
    List<String> ids = List.of("a", "b", "c", "d", "e");
    Pages.Page<String> first = Pages.page(ids, s -> s, s -> s.length() == 1, 2, "");
    assertThat(first.entries()).containsExactly("a", "b");
    Pages.Page<String> second = Pages.page(ids, s -> s, s -> s.length() == 1, 2, first.nextToken());
    assertThat(second.entries()).containsExactly("c", "d");
    Pages.Page<String> afterDeletion =
        Pages.page(List.of("a", "c", "e"), s -> s, s -> s.length() == 1, 2, second.nextToken());
    assertThat(afterDeletion.entries()).containsExactly("e");
    assertThat(afterDeletion.nextToken()).isEmpty();
    assertThatThrownBy(() -> Pages.page(ids, s -> s, s -> s.length() == 1, 2, "zz"))
        .isInstanceOfSatisfying(
            CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.ABORTED));
  }
}
