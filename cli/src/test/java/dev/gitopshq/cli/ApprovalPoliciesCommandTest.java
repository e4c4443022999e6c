package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gitopshq approval-policy} against a fake hub that answers as the API does. */
class ApprovalPoliciesCommandTest {
  static final String PROD =
      "{\"name\":\"production\",\"description\":\"prod\",\"requireApproval\":[\"rollback\","
          + "\"scale\"],\"autoApprove\":[\"sync\"],\"requiredApprovers\":2,"
          + "\"approverRoles\":[\"admin\",\"owner\"],\"approverTeams\":[\"sre\"],"
          + "\"breakGlass\":{\"allowed\":true,\"roles\":[\"owner\"]},\"clusters\":[],"
          + "\"selector\":{\"matchLabels\":{\"tier\":\"production\"},\"matchExpressions\":"
          + "[{\"key\":\"region\",\"operator\":\"In\",\"values\":[\"eu\",\"us\"]}]},"
          + "\"governs\":[{\"cluster\":\"prod-eu\",\"attachedBy\":\"selector\"}]}";

  @TempDir Path tmp;
  HttpServer hub;
  final List<String> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    hub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hub.createContext("/", this::answer);
    hub.start();
  }

  @AfterEach
  void stop() {
    hub.stop(0);
  }

  private void answer(HttpExchange x) throws IOException {
    String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String path = x.getRequestURI().getPath();
    String method = x.getRequestMethod();
    requests.add(method + " " + path + " " + body);
    int status = 200;
    String json;
    if (path.equals("/api/v2/approval-policies") && method.equals("GET")) {
      json = "{\"items\":[" + PROD + "]}";
    } else if (path.equals("/api/v2/approval-policies") && method.equals("POST")) {
      status = body.contains("\"tie\"") ? 400 : 201;
      json =
          status == 400
              ? "{\"status\":400,\"error\":\"invalid\",\"message\":\"invalid request\","
                  + "\"errors\":[{\"field\":\"selector\",\"reason\":\"cluster prod-eu matches the"
                  + " selectors of approval policies tie and production equally specifically\"}]}"
              : PROD.replace("\"production\",\"description", "\"new\",\"description");
    } else if (path.equals("/api/v2/approval-policies/production")) {
      json = method.equals("DELETE") ? "" : PROD;
      status = method.equals("DELETE") ? 204 : 200;
    } else {
      status = 404;
      json = "{\"status\":404,\"error\":\"not_found\",\"message\":\"approval policy not found\"}";
    }
    byte[] out = json.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(status, status == 204 ? -1 : out.length);
    if (status != 204) {
      x.getResponseBody().write(out);
    }
    x.close();
  }

  Run.Result run(String... args) {
    return new Run()
        .env("XDG_CONFIG_HOME", tmp.toString())
        .env("GITOPSHQ_SERVER", "http://127.0.0.1:" + hub.getAddress().getPort())
        .env("GITOPSHQ_TOKEN", "ghqp_test")
        .run(args);
  }

  @Test
  void listShowsRulesAttachmentsAndTheClustersGoverned() {
    Run.Result r = run("approval-policy", "list");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("production")
        .contains("rollback,scale")
        .contains("admin,owner team:sre")
        .contains("tier=production,region in (eu,us)")
        .contains("prod-eu");
  }

  @Test
  void createSendsTheRulesAndTheSelectorInTheApisShape() {
    Run.Result r =
        run(
            "approval-policy",
            "create",
            "new",
            "--require-approval",
            "scale,rollback",
            "--approvals",
            "2",
            "--approver-team",
            "sre",
            "--break-glass",
            "true",
            "--cluster",
            "prod-us",
            "--selector",
            "tier=production,region notin (cn),!canary,team");
    assertThat(r.code()).as(r.toString()).isZero();
    String sent = requests.stream().filter(q -> q.startsWith("POST")).findFirst().orElseThrow();
    assertThat(sent)
        .contains("\"name\":\"new\"")
        .contains("\"requireApproval\":[\"scale\",\"rollback\"]")
        .contains("\"requiredApprovers\":2")
        .contains("\"approverTeams\":[\"sre\"]")
        .contains("\"allowed\":true")
        .contains("\"clusters\":[\"prod-us\"]")
        .contains("\"matchLabels\":{\"tier\":\"production\"}")
        .contains("{\"key\":\"region\",\"operator\":\"NotIn\",\"values\":[\"cn\"]}")
        .contains("{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}")
        .contains("{\"key\":\"team\",\"operator\":\"Exists\"}");
  }

  @Test
  void updateChangesOnlyTheOptionsGiven() {
    Run.Result r = run("approval-policy", "update", "production", "--approvals", "3");
    assertThat(r.code()).as(r.toString()).isZero();
    String sent = requests.stream().filter(q -> q.startsWith("PUT")).findFirst().orElseThrow();
    assertThat(sent)
        .startsWith("PUT /api/v2/approval-policies/production ")
        .contains("\"requiredApprovers\":3")
        .contains("\"requireApproval\":[\"rollback\",\"scale\"]")
        .contains("\"approverTeams\":[\"sre\"]")
        .contains("\"roles\":[\"owner\"]")
        .contains("\"matchLabels\":{\"tier\":\"production\"}");
  }

  @Test
  void aTieRefusedByTheHubIsShownWithThePolicies() {
    Run.Result r = run("approval-policy", "create", "tie", "--selector", "region=eu");
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("tie and production");
  }

  @Test
  void deleteAndAnUnknownPolicy() {
    assertThat(run("approval-policy", "delete", "production").out())
        .contains("Deleted approval policy production.");
    Run.Result missing = run("approval-policy", "get", "nope");
    assertThat(missing.code()).isEqualTo(ExitCode.NOT_FOUND);
  }

  @Test
  void selectorsParseAsKubectlWrites() {
    assertThat(ApprovalPoliciesCommand.parseSelector("")).isNull();
    assertThat(ApprovalPoliciesCommand.parseSelector("*")).as("every cluster").isEmpty();
    assertThat(ApprovalPoliciesCommand.parseSelector("env!=dev").toString())
        .isEqualTo("{matchExpressions=[{key=env, operator=NotIn, values=[dev]}]}");
    assertThatThrownBy(() -> ApprovalPoliciesCommand.parseSelector("region in (eu"))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("unbalanced parentheses");
  }
}
