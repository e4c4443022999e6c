package dev.gitopshq.hub.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.gitopshq.hub.command.CommandRequests.BreakGlass;
import dev.gitopshq.hub.command.CommandRequests.Create;
import dev.gitopshq.hub.command.CommandRequests.Target;
import dev.gitopshq.hub.web.ApiError.FieldError;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The 400s of POST /api/v2/clusters/{id}/commands, derived from command_types.proto. */
class CommandRequestsTest {
  static final Target WEB = new Target("demo", "Deployment", "web");
  static final Target APP = new Target("argocd", "Application", "web");

  static List<FieldError> errors(Create c) {
    return catchThrowableOfType(ApiException.class, c::validate).error().errors();
  }

  static Create create(String type, Target target, Map<String, Object> params) {
    return new Create(type, target, params, null, null);
  }

  @Test
  void anUnknownTypeNamesTheTypesInTheApisOrder() {
    assertThat(errors(create("deploy", WEB, null)))
        .containsExactly(
            new FieldError(
                "type", "must be one of sync, rollback, restart, scale, refresh, resolve-drift"));
    assertThat(errors(create(null, null, null)))
        .extracting(FieldError::field)
        .containsExactly("type", "target");
  }

  @Test
  void resolveDriftIsRequestedThroughItsFinding() {
    assertThat(errors(create("resolve-drift", WEB, Map.of("findingId", "x"))))
        .containsExactly(
            new FieldError(
                "type",
                "resolve-drift is requested for a drift finding:"
                    + " POST /api/v2/clusters/{id}/drift/{findingId}/resolve"));
  }

  @Test
  void eachTypeActsOnItsKind() {
    assertThat(errors(create("sync", WEB, null)))
        .containsExactly(new FieldError("target.kind", "must be Application for a sync command"));
    assertThat(errors(create("scale", APP, Map.of("replicas", 2))))
        .containsExactly(new FieldError("target.kind", "must be Deployment for a scale command"));
    assertThat(create("restart", WEB, null).validate()).isEmpty();
    assertThat(create("refresh", APP, Map.of()).validate()).isEmpty();
  }

  @Test
  void scaleNeedsReplicasFromZeroToOneThousand() {
    assertThat(create("scale", WEB, Map.of("replicas", 1000)).validate())
        .containsExactly(Map.entry("replicas", "1000"));
    assertThat(errors(create("scale", WEB, Map.of("replicas", 1001))))
        .containsExactly(
            new FieldError("params.replicas", "must be a whole number from 0 to 1000"));
    assertThat(errors(create("scale", WEB, Map.of("replicas", 2.5))))
        .containsExactly(
            new FieldError("params.replicas", "must be a whole number from 0 to 1000"));
    assertThat(errors(create("scale", WEB, null)))
        .containsExactly(new FieldError("params.replicas", "is required for scale"));
  }

  @Test
  void rollbackNeedsExactlyOneOfRevisionOrHistoryId() {
    assertThat(errors(create("rollback", APP, Map.of())))
        .containsExactly(
            new FieldError("params", "give exactly one of revision or historyId for rollback"));
    assertThat(create("rollback", APP, Map.of("historyId", 4)).validate())
        .containsExactly(Map.entry("historyId", "4"));
    assertThat(errors(create("rollback", APP, Map.of("revision", "r".repeat(256)))))
        .containsExactly(
            new FieldError("params.revision", "must be a Git revision of at most 255 characters"));
  }

  @Test
  void anUndeclaredParamIsNamed() {
    assertThat(errors(create("restart", WEB, Map.of("replicas", 2))))
        .containsExactly(
            new FieldError("params.replicas", "is not a parameter of this command type"));
    assertThat(create("sync", APP, Map.of("revision", "main")).validate())
        .containsExactly(Map.entry("revision", "main"));
  }

  @Test
  void breakGlassNeedsAJustification() {
    assertThat(errors(new Create("restart", WEB, null, null, new BreakGlass("too short"))))
        .extracting(FieldError::field)
        .containsExactly("breakGlass.justification");
  }
}
