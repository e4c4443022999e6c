package dev.gitopshq.hub.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.release.RollbackScope;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReleaseRequestsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static ReleaseRequests.Rollback rollback(String scope) throws Exception {
    JsonNode s = scope == null ? null : JSON.readTree(scope);
    return new ReleaseRequests.Rollback(3, s, null, null, null);
  }

  static List<String> fields(ThrowingRunnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      return e.error().errors().stream().map(ApiError.FieldError::field).toList();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no 400");
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void readsAllAndEntries() throws Exception {
    assertThat(rollback("\"all\"").validate()).isEqualTo(RollbackScope.ALL);
    assertThat(
            rollback("[{\"environment\":\"staging\",\"tenant\":\"acme\"},{\"service\":\"web\"}]")
                .validate())
        .isEqualTo(
            RollbackScope.of(
                List.of(
                    new RollbackScope.Entry("staging", "acme", null),
                    new RollbackScope.Entry(null, null, "web"))));
  }

  @Test
  void namesEachMalformedField() {
    assertThat(fields(() -> rollback(null).validate())).containsExactly("scope");
    assertThat(fields(() -> rollback("\"everything\"").validate())).containsExactly("scope");
    assertThat(fields(() -> rollback("[]").validate())).containsExactly("scope");
    assertThat(fields(() -> rollback("[{}]").validate())).containsExactly("scope[0]");
    assertThat(fields(() -> rollback("[\"acme\"]").validate())).containsExactly("scope[0]");
    assertThat(
            fields(
                () ->
                    rollback("[{\"tenant\":\"acme\"},{\"tenant\":\"Acme!\",\"cluster\":\"c1\"}]")
                        .validate()))
        .containsExactlyInAnyOrder("scope[1].tenant", "scope[1].cluster");
    assertThat(fields(() -> rollback("[{\"service\":7}]").validate()))
        .containsExactly("scope[0].service");
    assertThat(
            fields(
                () ->
                    new ReleaseRequests.Rollback(null, JSON.readTree("\"all\""), null, null, null)
                        .validate()))
        .containsExactly("toRelease");
  }

  @Test
  void breakGlassNeedsAJustificationAndAJustificationNeedsBreakGlass() {
    assertThat(fields(() -> new ReleaseRequests.Promote(null, true, " ").validate()))
        .containsExactly("justification");
    assertThat(fields(() -> new ReleaseRequests.Create(null, null, null, "because").validate()))
        .containsExactly("justification");
    new ReleaseRequests.Create("x", "staging", true, "checkout is down for every customer")
        .validate();
    assertThatThrownBy(() -> new ReleaseRequests.Create(null, "Not_An_Env", null, null).validate())
        .isInstanceOf(ApiException.class);
  }
}
