package dev.gitopshq.hub.team;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.git.GitCli;
import dev.gitopshq.hub.git.GitCli.Run;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hosted Git repositories follow the grants for API tokens of members: the real git client
 * clones a project the member's team has a grant on, and an ungranted project's repository answers
 * exactly as one that does not exist. A push is refused either way: read-only where the grant
 * reaches (even an admin grant), not found where it does not. In an organization of its own.
 */
class GitGrantsIT {
  static Path work;
  static HubTestSupport hub;

  @BeforeAll
  static void start() throws Exception {
    hub = HubTestSupport.shared();
    work = Files.createTempDirectory("gitopshq-git-grants");
    Files.createDirectories(work.resolve("home"));
  }

  /** The real git, with no user or system configuration, no credential helper and no prompts. */
  static Run git(Path dir, String... args) throws Exception {
    return new GitCli(work.resolve("home"), "Member").run(dir, args);
  }

  /** The status and body of a smart-HTTP request with the token as the Basic password. */
  static String answer(HubTestSupport hub, String path, String token) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort() + path))
                    .header(
                        "Authorization",
                        "Basic "
                            + Base64.getEncoder().encodeToString(("x:" + token).getBytes(UTF_8)))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }

  @Test
  void aMemberClonesTheGrantedProjectAndFindsNoOtherAndPushesNowhere() throws Exception {
    GrantFixtures org = new GrantFixtures(hub, "git");
    String s = UUID.randomUUID().toString().substring(0, 8);
    String granted = "shop-" + s;
    String hidden = "payroll-" + s;
    String grantedId = org.project(granted);
    org.project(hidden);
    String memberId = org.member("member");
    String team = org.team("shop-team-" + s, memberId);
    org.projectGrant(team, "viewer", grantedId);
    String token = org.token(memberId);
    String base = "http://x:" + token + "@127.0.0.1:" + hub.httpPort() + "/git/" + org.slug + "/";

    Path clone = work.resolve("granted");
    Run ok = git(work, "clone", base + granted + ".git", clone.toString());
    assertThat(ok.exit()).as(ok.output()).isZero();
    Run log = git(clone, "log", "--format=%s", "-1", "origin/" + ProjectRepos.MAIN);
    assertThat(log.exit()).as(log.output()).isZero();
    assertThat(log.output()).isNotBlank();

    // The ungranted project's repository is what a repository that does not exist is.
    String refs = "/info/refs?service=git-upload-pack";
    String prefix = "/git/" + org.slug + "/";
    String none = answer(hub, prefix + "nothing-" + s + ".git" + refs, token);
    assertThat(none).startsWith("404");
    assertThat(answer(hub, prefix + hidden + ".git" + refs, token)).isEqualTo(none);
    Run refused = git(work, "clone", base + hidden + ".git", work.resolve(hidden).toString());
    assertThat(refused.exit()).isNotZero();
    assertThat(refused.output()).contains("not found").doesNotContain("read-only");
    Run unknown =
        git(work, "clone", base + "nothing-" + s + ".git", work.resolve("nothing-" + s).toString());
    assertThat(refused.output().replace(hidden, "<repo>"))
        .isEqualTo(unknown.output().replace("nothing-" + s, "<repo>"));
    assertThat(Files.exists(work.resolve(hidden).resolve(".git"))).isFalse();

    // A push is refused: read-only on the granted project, even with an admin grant there.
    org.projectGrant(team, "admin", grantedId);
    Files.writeString(clone.resolve("tampered.yaml"), "x: 1\n");
    assertThat(git(clone, "add", "tampered.yaml").exit()).isZero();
    assertThat(git(clone, "commit", "-m", "tamper").exit()).isZero();
    String before = git(clone, "rev-parse", "origin/" + ProjectRepos.MAIN).output();
    Run push = git(clone, "push", "origin", "HEAD:" + ProjectRepos.MAIN);
    assertThat(push.exit()).as(push.output()).isNotZero();
    assertThat(push.output()).contains("read-only").contains("403");
    String pushRefs = "/info/refs?service=git-receive-pack";
    assertThat(answer(hub, prefix + granted + ".git" + pushRefs, token)).startsWith("403");
    // ...and not found on the ungranted one, as for no repository at all.
    assertThat(answer(hub, prefix + hidden + ".git" + pushRefs, token))
        .startsWith("404")
        .isEqualTo(answer(hub, prefix + "nothing-" + s + ".git" + pushRefs, token));
    Run fetched = git(clone, "fetch", "origin");
    assertThat(fetched.exit()).as(fetched.output()).isZero();
    assertThat(git(clone, "rev-parse", "origin/" + ProjectRepos.MAIN).output()).isEqualTo(before);

    // Without the grants, the granted repository goes away too.
    for (var g : hub.get("/api/v2/grants?teamId=" + team, org.owner).body().get("items")) {
      assertThat(
              hub.send("DELETE", "/api/v2/grants/" + g.get("id").asText(), org.owner, null)
                  .status())
          .isEqualTo(204);
    }
    assertThat(answer(hub, prefix + granted + ".git" + refs, token)).isEqualTo(none);
    assertThat(git(clone, "fetch", "origin").exit()).isNotZero();
  }
}
