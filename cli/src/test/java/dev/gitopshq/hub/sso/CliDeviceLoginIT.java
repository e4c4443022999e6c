package dev.gitopshq.hub.sso;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.cli.Main;
import dev.gitopshq.hub.HubTestSupport;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gitopshq login --device} against the development OIDC provider ({@code idp/}, a real
 * Spring Authorization Server) and a hub with SSO: the CLI shows the code, a person approves it on
 * the provider's page, and the CLI saves a hub session that works for the next command. In the
 * hub's SSO test package to share its provider and browser helpers.
 */
class CliDeviceLoginIT {
  static DevIdp idp;
  static HubTestSupport hub;
  static String url;

  @TempDir static Path config;

  @BeforeAll
  static void start() {
    idp =
        DevIdp.start(
                DevIdp.freePort(),
                List.of(
                    "--idp.users[0].username=demo",
                    "--idp.users[0].password=demo-pass",
                    "--idp.users[0].email=demo@example.com",
                    "--idp.users[0].name=Demo",
                    "--idp.users[0].groups[0]=platform-admins",
                    "--idp.clients[0].id=gitopshq-cli",
                    "--idp.clients[0].grant=device_code"))
            .awaitReady();
    hub =
        new HubTestSupport()
            .property("gitopshq.oidc.issuer", idp.issuer())
            .property("gitopshq.oidc.client-id", "gitopshq-ui")
            .property("gitopshq.oidc.cli-client-id", "gitopshq-cli")
            .property("gitopshq.oidc.redirect-uri", "http://127.0.0.1:1/unused")
            .property("gitopshq.oidc.group-mappings[0].group", "platform-admins")
            .property("gitopshq.oidc.group-mappings[0].role", "admin")
            .start();
    url = "http://127.0.0.1:" + hub.context().getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    if (hub != null) {
      hub.close();
    }
    if (idp != null) {
      idp.close();
    }
  }

  static int run(StringWriter out, StringWriter err, String... args) {
    return Main.run(
        args,
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        Map.of("XDG_CONFIG_HOME", config.toString()),
        new ByteArrayInputStream(new byte[0]));
  }

  @Test
  void signsInWithTheDeviceFlowAndSavesAHubSession() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CompletableFuture<Integer> login =
        CompletableFuture.supplyAsync(() -> run(out, err, "login", "--server", url, "--device"));

    Pattern prompt = Pattern.compile("To sign in, open (\\S+)\\nand enter the code (\\S+)\\n");
    Matcher m = prompt.matcher(err.toString());
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!m.find()) {
      assertThat(login).as(err.toString()).isNotDone();
      assertThat(Instant.now()).as("the prompt: " + err).isBefore(deadline);
      Thread.sleep(100);
      m = prompt.matcher(err.toString());
    }
    URI verification = URI.create(m.group(1));
    String userCode = m.group(2);
    assertThat(verification.toString()).startsWith(idp.issuer());

    approve(verification, userCode, "demo", "demo-pass");

    int code = login.get(60, TimeUnit.SECONDS);
    assertThat(code).as(out + "\n" + err).isZero();
    assertThat(out.toString()).contains("as demo@example.com (admin)");
    Path file = config.resolve("gitopshq").resolve("config.yaml");
    assertThat(Files.readString(file)).containsPattern("ghqo_[0-9a-f]{64}");

    StringWriter who = new StringWriter();
    assertThat(run(who, new StringWriter(), "whoami")).isZero();
    assertThat(who.toString())
        .containsPattern("Name:\\s+demo@example.com")
        .containsPattern("Role:\\s+admin");
  }

  @Test
  void aHubWithoutSsoSaysSo() {
    HubTestSupport plain = HubTestSupport.shared();
    StringWriter err = new StringWriter();
    String plainUrl =
        "http://127.0.0.1:" + plain.context().getEnvironment().getProperty("local.server.port");
    int code = run(new StringWriter(), err, "login", "--server", plainUrl, "--device");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("no single sign-on configured");
  }

  /** The person opens the verification page, signs in, enters the code and consents. */
  private static void approve(URI verification, String userCode, String user, String password) {
    Browser browser = new Browser();
    Browser.Page toLogin = browser.get(verification);
    assertThat(toLogin.status()).isEqualTo(302);
    Browser.Page afterLogin = browser.signIn(toLogin, user, password);
    Browser.Page page = browser.get(afterLogin.next());
    assertThat(page.status()).isEqualTo(200);
    URI action = page.uri().resolve(Browser.formAction(page.body()));
    Browser.Page consent = browser.get(URI.create(action + "?user_code=" + Browser.enc(userCode)));
    assertThat(consent.status()).as(consent.body()).isEqualTo(200);
    List<Map.Entry<String, String>> answer = new ArrayList<>();
    answer.add(Map.entry("client_id", Browser.hidden(consent.body(), "client_id")));
    answer.add(Map.entry("state", Browser.hidden(consent.body(), "state")));
    answer.add(Map.entry("user_code", Browser.hidden(consent.body(), "user_code")));
    Browser.checkboxes(consent.body(), "scope").forEach(s -> answer.add(Map.entry("scope", s)));
    Browser.Page approved = browser.post(action, answer);
    assertThat(approved.status()).isEqualTo(302);
    assertThat(approved.location()).contains("success");
  }
}
