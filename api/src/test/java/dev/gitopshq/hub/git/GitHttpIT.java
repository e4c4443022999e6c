package dev.gitopshq.hub.git;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.FileRepoStore;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.git.GitCli.Run;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The hosted repositories over Git smart HTTP, driven by the real {@code git} command: deploy
 * tokens and API tokens as passwords, read-only, and no way out of the repository root.
 */
class GitHttpIT {
  private static final String DEPLOYMENT_PATH =
      "rendered/production/eu-1/acme/web/deployment-web.yaml";
  private static final String DEPLOYMENT =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: acme-production\n";
  private static final String VALUES = "replicas: 3\n";

  static HubTestSupport hub;
  static ProjectRepos repos;
  static UUID orgId;
  static int port;
  static Path work;
  static final AtomicInteger clones = new AtomicInteger();

  /**
   * The projects this class made in the organization every test hub shares, deleted after it: a hub
   * process on the same database (DatabaseOutageIT) commits to every project of that organization
   * and has no repository for these.
   */
  static final List<UUID> sharedOrgProjects = new CopyOnWriteArrayList<>();

  /** The shared hub (file storage); a subclass that runs these tests on another hub uses it. */
  @BeforeAll
  static void start(TestInfo test) throws Exception {
    if (test.getTestClass().orElseThrow() == GitHttpIT.class) {
      use(HubTestSupport.shared());
    }
  }

  static void use(HubTestSupport on) throws Exception {
    hub = on;
    repos = hub.bean(ProjectRepos.class);
    port = Integer.parseInt(hub.context().getEnvironment().getProperty("local.server.port"));
    orgId = HubTestSupport.defaultOrgId();
    work = Files.createTempDirectory("gitopshq-git-it");
    Files.createDirectories(work.resolve("home"));
  }

  // ---- fixtures ----------------------------------------------------------------------------

  /** A project of the given org, inserted as the projects API would, with one commit on main. */
  record Project(UUID org, UUID id, String name, CommitResult main) {}

  static Project project(UUID org, String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    UUID id = UUID.randomUUID();
    HubTestSupport.exec(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, ?, 'test', now(), now())",
        id,
        org,
        name);
    repos.create(org, id);
    CommitResult main =
        repos.commit(
            org,
            id,
            ProjectRepos.MAIN,
            null,
            List.of(
                TreeEdit.file(DEPLOYMENT_PATH, DEPLOYMENT.getBytes(UTF_8)),
                TreeEdit.file("config/workloads/web/values.yaml", VALUES.getBytes(UTF_8))),
            Ident.of("member", "test", "Test"),
            new CommitMessage(
                    "Deliver shop",
                    "",
                    "Test (member test)",
                    Map.of("project", name),
                    "delivery.generated")
                .format());
    if (org.equals(orgId)) {
      sharedOrgProjects.add(id);
    }
    return new Project(org, id, name, main);
  }

  @AfterAll
  static void deleteSharedOrgProjects() {
    for (UUID id : sharedOrgProjects) {
      Response r = hub.send("DELETE", "/api/v2/projects/" + id, OWNER_TOKEN, null);
      assertThat(r.status()).as(r.raw()).isEqualTo(204);
    }
    sharedOrgProjects.clear();
  }

  static Project project(String prefix) {
    return project(orgId, prefix);
  }

  static Response issue(Project p, String token, Map<String, Object> body) {
    return hub.post("/api/v2/projects/" + p.id() + "/deploy-tokens", token, body);
  }

  static String deployToken(Project p) {
    Response r = issue(p, OWNER_TOKEN, Map.of("name", "argocd"));
    assertThat(r.status()).isEqualTo(201);
    return r.body().get("token").asText();
  }

  static String repoPath(Project p) {
    return "/git/" + slug(p.org()) + "/" + p.name() + ".git";
  }

  static String slug(UUID org) {
    try (Connection c = HubTestSupport.db();
        var ps = c.prepareStatement("select slug from organizations where id = ?")) {
      ps.setObject(1, org);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String url(Project p, String token) {
    return "http://"
        + (token == null ? "" : "deploy:" + token + "@")
        + "127.0.0.1:"
        + port
        + repoPath(p);
  }

  static String memberToken(String role) {
    return hub.memberToken(role);
  }

  // ---- the real git ------------------------------------------------------------------------

  /** The real git, with no user or system configuration, no credential helper and no prompts. */
  static Run git(Path dir, String... args) throws Exception {
    return new GitCli(work.resolve("home"), "Mallory").run(dir, args);
  }

  static Path newDir() {
    return work.resolve("clone-" + clones.incrementAndGet());
  }

  static Run clone(String url, Path into, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("clone"));
    args.addAll(List.of(options));
    args.add(url);
    args.add(into.toString());
    return git(work, args.toArray(String[]::new));
  }

  // ---- raw HTTP, exactly as written (no client normalizes the path) ------------------------

  record Raw(int status, String head, String body) {}

  static Raw raw(String method, String target, String token) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      StringBuilder req =
          new StringBuilder(
              method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
      if (token != null) {
        req.append("Authorization: Basic ")
            .append(Base64.getEncoder().encodeToString(("deploy:" + token).getBytes(UTF_8)))
            .append("\r\n");
      }
      req.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
      OutputStream out = s.getOutputStream();
      out.write(req.toString().getBytes(UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String text = all.toString(UTF_8);
      int split = text.indexOf("\r\n\r\n");
      String head = split < 0 ? text : text.substring(0, split);
      String body = split < 0 ? "" : text.substring(split + 4);
      int status = Integer.parseInt(head.substring(9, 12));
      return new Raw(status, head, body);
    }
  }

  static Raw infoRefs(Project p, String token) throws IOException {
    return raw("GET", repoPath(p) + "/info/refs?service=git-upload-pack", token);
  }

  // ---- tests -------------------------------------------------------------------------------

  @Test
  void cloneWithoutATokenIsRefusedWithABasicChallenge() throws Exception {
    Project p = project("shop");
    Path into = newDir();
    Run run = clone(url(p, null), into);
    assertThat(run.exit()).as(run.output()).isNotZero();
    assertThat(run.output())
        .containsAnyOf(
            "Authentication failed", "could not read Username", "terminal prompts disabled");
    assertThat(into.resolve(DEPLOYMENT_PATH)).doesNotExist();

    Raw r = infoRefs(p, null);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.head()).contains("WWW-Authenticate: Basic realm=\"GitOpsHQ\"");
    assertThat(r.body()).doesNotContain("refs/heads");
  }

  @Test
  void cloneWithADeployTokenChecksOutWhatWasCommitted() throws Exception {
    Project p = project("shop");
    Response issued = issue(p, OWNER_TOKEN, Map.of("name", "argocd-prod", "expiresInDays", 30));
    assertThat(issued.status()).isEqualTo(201);
    String token = issued.body().get("token").asText();
    assertThat(token).matches("ghqd_[0-9a-f]{64}");
    assertThat(issued.body().get("username").asText()).isEqualTo("deploy");
    assertThat(issued.body().get("cloneUrl").asText())
        .endsWith("/git/default/" + p.name() + ".git");
    assertThat(issued.body().get("expiresAt").asText()).isNotEmpty();

    Path into = newDir();
    Run run = clone(url(p, token), into);
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(Files.readString(into.resolve(DEPLOYMENT_PATH))).isEqualTo(DEPLOYMENT);
    assertThat(Files.readString(into.resolve("config/workloads/web/values.yaml")))
        .isEqualTo(VALUES);
    Run head = git(into, "rev-parse", "HEAD");
    assertThat(head.output().strip()).isEqualTo(p.main().commitName());
    assertThat(git(into, "log", "-1", "--format=%B").output())
        .contains("GitOpsHQ-Change: delivery.generated");

    // The use is recorded; the list shows metadata only.
    Response list = hub.get("/api/v2/projects/" + p.id() + "/deploy-tokens", OWNER_TOKEN);
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body().get("items")).hasSize(1);
    assertThat(list.body().get("items").get(0).get("name").asText()).isEqualTo("argocd-prod");
    assertThat(list.body().get("items").get(0).get("lastUsedAt")).isNotNull();
    assertThat(list.raw())
        .doesNotContain(token)
        .doesNotContain(Tokens.sha256Hex(token))
        .doesNotContain("\"token\"");

    // Only the hash is stored.
    assertThat(
            HubTestSupport.count(
                "select count(*) from deploy_tokens where token_hash = ?", Tokens.sha256Hex(token)))
        .isEqualTo(1);
  }

  @Test
  void aFetchAfterANewCommitSeesIt() throws Exception {
    Project p = project("shop");
    String token = deployToken(p);
    Path into = newDir();
    assertThat(clone(url(p, token), into).exit()).isZero();
    CommitResult next =
        repos.commit(
            orgId,
            p.id(),
            ProjectRepos.MAIN,
            p.main().commit(),
            List.of(TreeEdit.file(DEPLOYMENT_PATH, "kind: Deployment\n# v2\n".getBytes(UTF_8))),
            Ident.HUB,
            "v2\n");
    Run pull = git(into, "pull", "--ff-only");
    assertThat(pull.exit()).as(pull.output()).isZero();
    assertThat(git(into, "rev-parse", "HEAD").output().strip()).isEqualTo(next.commitName());
    assertThat(Files.readString(into.resolve(DEPLOYMENT_PATH)))
        .isEqualTo("kind: Deployment\n# v2\n");
  }

  @Test
  void theDeployBranchOfAnEnvironmentClonesWithItsTreeAtTheRoot() throws Exception {
    Project p = project("shop");
    String token = deployToken(p);
    ObjectId released =
        repos.treeAt(orgId, p.id(), p.main().commit(), "rendered/production").orElseThrow();
    repos.commit(
        orgId,
        p.id(),
        ProjectRepos.deployBranch("production"),
        ObjectId.zeroId(),
        List.of(TreeEdit.tree("", released)),
        Ident.HUB,
        "Release 1 to production\n");

    Path into = newDir();
    Run run = clone(url(p, token), into, "--branch", "deploy/production");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(Files.readString(into.resolve("eu-1/acme/web/deployment-web.yaml")))
        .isEqualTo(DEPLOYMENT);
    assertThat(into.resolve("config")).doesNotExist();

    Run missing = clone(url(p, token), newDir(), "--branch", "deploy/staging");
    assertThat(missing.exit()).isNotZero();
    assertThat(missing.output()).contains("deploy/staging");
  }

  @Test
  void aPushIsRefusedAndTheBranchStaysWhereItWas() throws Exception {
    Project p = project("shop");
    String token = deployToken(p);
    Path into = newDir();
    assertThat(clone(url(p, token), into).exit()).isZero();
    Files.writeString(into.resolve(DEPLOYMENT_PATH), "kind: Deployment\n# tampered\n");
    assertThat(git(into, "commit", "-am", "tamper").exit()).isZero();

    Run push = git(into, "push", "origin", "HEAD:main");
    assertThat(push.exit()).as(push.output()).isNotZero();
    assertThat(push.output()).contains("read-only").contains("403");
    Run newBranch = git(into, "push", "origin", "HEAD:refs/heads/evil");
    assertThat(newBranch.exit()).isNotZero();

    assertThat(repos.head(orgId, p.id(), ProjectRepos.MAIN)).contains(p.main().commit());
    assertThat(repos.head(orgId, p.id(), "evil")).isEmpty();
    // Straight to the endpoint, too: refused before JGit sees it.
    assertThat(raw("POST", repoPath(p) + "/git-receive-pack", token).status()).isEqualTo(403);
    assertThat(raw("GET", repoPath(p) + "/info/refs?service=git-receive-pack", token).status())
        .isEqualTo(403);
  }

  @Test
  void aDeployTokenOfAnotherProjectFindsNothing() throws Exception {
    Project mine = project("shop");
    Project other = project("billing");
    String otherToken = deployToken(other);

    Run run = clone(url(mine, otherToken), newDir());
    assertThat(run.exit()).as(run.output()).isNotZero();
    assertThat(run.output()).contains("not found");
    Raw r = infoRefs(mine, otherToken);
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.body()).doesNotContain("refs/heads");
    // The same answer as for a project that does not exist at all.
    Raw none =
        raw(
            "GET",
            "/git/default/no-such-project.git/info/refs?service=git-upload-pack",
            otherToken);
    assertThat(none.status()).isEqualTo(404);
    assertThat(none.body()).isEqualTo(r.body());
    // And it still reads its own project.
    assertThat(clone(url(other, otherToken), newDir()).exit()).isZero();
  }

  @Test
  void tokensDoNotCrossOrganizations() throws Exception {
    UUID otherOrg = UUID.randomUUID();
    String otherSlug = "other-" + otherOrg.toString().substring(0, 8);
    HubTestSupport.exec(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'Other', now())",
        otherOrg,
        otherSlug);
    Project theirs = project(otherOrg, "shop");
    Project mine = project("shop");
    String mineToken = deployToken(mine);

    // The owner of the default organization (API token) and a deploy token of it: 404 there.
    assertThat(infoRefs(theirs, OWNER_TOKEN).status()).isEqualTo(404);
    assertThat(infoRefs(theirs, mineToken).status()).isEqualTo(404);
    // The same project name under the default organization's slug is a different project.
    assertThat(
            raw(
                    "GET",
                    "/git/default/" + theirs.name() + ".git/info/refs?service=git-upload-pack",
                    mineToken)
                .status())
        .isEqualTo(404);
  }

  @Test
  void revokedAndExpiredTokensAreUnauthorized() throws Exception {
    Project p = project("shop");
    Response issued = issue(p, OWNER_TOKEN, Map.of("name", "flux"));
    String token = issued.body().get("token").asText();
    String id = issued.body().get("id").asText();
    assertThat(infoRefs(p, token).status()).isEqualTo(200);

    assertThat(
            hub.send(
                    "DELETE",
                    "/api/v2/projects/" + p.id() + "/deploy-tokens/" + id,
                    OWNER_TOKEN,
                    null)
                .status())
        .isEqualTo(204);
    Raw revoked = infoRefs(p, token);
    assertThat(revoked.status()).isEqualTo(401);
    assertThat(revoked.head()).contains("WWW-Authenticate: Basic realm=\"GitOpsHQ\"");
    Run run = clone(url(p, token), newDir());
    assertThat(run.exit()).isNotZero();
    assertThat(run.output()).contains("Authentication failed");
    // Revoking again is no change; the list shows when it was revoked.
    assertThat(
            hub.send(
                    "DELETE",
                    "/api/v2/projects/" + p.id() + "/deploy-tokens/" + id,
                    OWNER_TOKEN,
                    null)
                .status())
        .isEqualTo(204);
    assertThat(
            hub.get("/api/v2/projects/" + p.id() + "/deploy-tokens", OWNER_TOKEN)
                .body()
                .get("items")
                .get(0)
                .get("revokedAt"))
        .isNotNull();
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'deploy_token.revoked' and target_id = ?",
                id))
        .isEqualTo(1);

    String expiring = deployToken(p);
    assertThat(infoRefs(p, expiring).status()).isEqualTo(200);
    HubTestSupport.exec(
        "update deploy_tokens set expires_at = now() - interval '1 minute' where token_hash = ?",
        Tokens.sha256Hex(expiring));
    Raw expired = infoRefs(p, expiring);
    assertThat(expired.status()).isEqualTo(401);
    // Whatever was wrong, the answer is the same.
    Raw garbage = infoRefs(p, "ghqd_" + "0".repeat(64));
    Raw malformed = infoRefs(p, "not-a-token");
    assertThat(List.of(revoked, expired, garbage, malformed))
        .extracting(Raw::status)
        .containsOnly(401);
    assertThat(List.of(expired.body(), garbage.body(), malformed.body()))
        .containsOnly(revoked.body());
    assertThat(clone(url(p, expiring), newDir()).exit()).isNotZero();
  }

  @Test
  void traversalUrlsServeNothing() throws Exception {
    Project p = project("shop");
    String token = deployToken(p);
    // A real repository next to the repository root, and one file: neither may be reachable.
    Path outside =
        (repos.store() instanceof FileRepoStore files ? files.root().getParent() : work)
            .resolve("outside.git");
    assertThat(git(work, "init", "--bare", "-q", outside.toString()).exit()).isZero();

    List<String> targets =
        List.of(
            "/git/default/../" + p.name() + ".git/info/refs?service=git-upload-pack",
            "/git/default/../../outside.git/info/refs?service=git-upload-pack",
            "/git/../outside.git/info/refs?service=git-upload-pack",
            "/git/%2e%2e/outside.git/info/refs?service=git-upload-pack",
            "/git/default/%2e%2e/%2e%2e/outside.git/info/refs?service=git-upload-pack",
            "/git/default/%2E%2E%2F%2E%2E%2Foutside.git/info/refs?service=git-upload-pack",
            "/git/default/" + p.name() + ".git/../../etc",
            "/git/default/" + p.name() + ".git/../../../../../../etc/passwd",
            "/git/default/"
                + p.name()
                + ".git/info/../../../outside.git/info/refs?service=git-upload-pack",
            "/git/default/" + p.name() + ".git/%2e%2e/%2e%2e/etc/passwd",
            "/git/default/" + p.name() + ".git/HEAD",
            "/git/default/" + p.name() + ".git/config",
            "/git/default/" + p.name() + ".git/objects/info/packs",
            "/git/default/" + p.name() + ".git/refs/heads/main",
            "/git//default/" + p.name() + ".git/info/refs?service=git-upload-pack",
            "/git/default/" + p.name() + "/info/refs?service=git-upload-pack",
            "/git/" + orgId + "/" + p.id() + ".git/info/refs?service=git-upload-pack",
            "/git/default/" + p.name() + ".git%2finfo%2frefs?service=git-upload-pack",
            "/git/default/" + p.name() + ".git;jsessionid=x/info/refs?service=git-upload-pack",
            "/git/default%5c..%5c..%5coutside.git/info/refs?service=git-upload-pack");
    for (String target : targets) {
      Raw r = raw("GET", target, token);
      assertThat(r.status()).as(target).isIn(400, 404);
      assertThat(r.body())
          .as(target)
          .doesNotContain("refs/heads")
          .doesNotContain("[core]")
          .doesNotContain("root:");
    }
    // The dumb protocol is not served either, even for the right repository.
    assertThat(raw("GET", repoPath(p) + "/info/refs", token).status()).isEqualTo(403);

    // git itself, asked for a traversal URL, gets nothing.
    Run run =
        clone(
            "http://deploy:" + token + "@127.0.0.1:" + port + "/git/default/../../outside.git",
            newDir());
    assertThat(run.exit()).isNotZero();
    Run encoded =
        clone(
            "http://deploy:" + token + "@127.0.0.1:" + port + "/git/%2e%2e/%2e%2e/outside.git",
            newDir());
    assertThat(encoded.exit()).isNotZero();
  }

  @Test
  void apiTokensWithProjectsReadMayCloneTheirOrganizationsRepositories() throws Exception {
    Project p = project("shop");
    String viewer = memberToken("viewer");
    Path into = newDir();
    Run run = clone(url(p, viewer), into);
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(Files.readString(into.resolve(DEPLOYMENT_PATH))).isEqualTo(DEPLOYMENT);
    // A member token cannot push either.
    Files.writeString(into.resolve("x.yaml"), "x: 1\n");
    git(into, "add", "x.yaml");
    git(into, "commit", "-m", "x");
    assertThat(git(into, "push", "origin", "HEAD:main").exit()).isNotZero();
    assertThat(repos.head(orgId, p.id(), ProjectRepos.MAIN)).contains(p.main().commit());

    // A service account limited to clusters:read is refused: 403, it may not read projects.
    Response sa =
        hub.post(
            "/api/v2/service-accounts",
            OWNER_TOKEN,
            Map.of(
                "name",
                "ci-" + UUID.randomUUID().toString().substring(0, 8),
                "scopes",
                List.of("clusters:read")));
    String ci =
        hub.post(
                "/api/v2/service-accounts/" + sa.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "t"))
            .body()
            .get("token")
            .asText();
    assertThat(infoRefs(p, ci).status()).isEqualTo(403);
    assertThat(clone(url(p, ci), newDir()).exit()).isNotZero();

    // Revoked through REST, the member's token stops working on Git at the next fetch.
    String me = hub.get("/api/v2/me", viewer).body().get("id").asText();
    String tokenId =
        hub.get("/api/v2/members/" + me + "/tokens", viewer)
            .body()
            .get("items")
            .get(0)
            .get("id")
            .asText();
    assertThat(
            hub.send("DELETE", "/api/v2/members/" + me + "/tokens/" + tokenId, viewer, null)
                .status())
        .isEqualTo(200);
    assertThat(infoRefs(p, viewer).status()).isEqualTo(401);
    assertThat(git(into, "fetch", "origin").exit()).isNotZero();
  }

  @Test
  void aBearerHeaderWorksLikeTheBasicPassword() throws Exception {
    Project p = project("shop");
    String token = deployToken(p);
    Path into = newDir();
    Run run = clone(url(p, null), into, "-c", "http.extraHeader=Authorization: Bearer " + token);
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(Files.readString(into.resolve(DEPLOYMENT_PATH))).isEqualTo(DEPLOYMENT);
  }

  @Test
  void deployTokenPermissionsAndValidation() {
    Project p = project("shop");
    String viewer = memberToken("viewer");
    String member = memberToken("member");
    String base = "/api/v2/projects/" + p.id() + "/deploy-tokens";

    Response issued = issue(p, OWNER_TOKEN, Map.of("name", "argocd"));
    assertThat(issued.status()).isEqualTo(201);
    String id = issued.body().get("id").asText();

    // A viewer lists tokens but cannot create or revoke them; neither can a member.
    Response list = hub.get(base, viewer);
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body().get("items").findValuesAsText("id")).containsExactly(id);
    Response byViewer = hub.post(base, viewer, Map.of("name", "x"));
    assertThat(byViewer.status()).isEqualTo(403);
    assertThat(byViewer.body().get("message").asText()).contains("projects:admin");
    assertThat(hub.post(base, member, Map.of("name", "x")).status()).isEqualTo(403);
    assertThat(hub.send("DELETE", base + "/" + id, viewer, null).status()).isEqualTo(403);
    assertThat(hub.get(base, null).status()).isEqualTo(401);

    // Validation names the field.
    Response noName = hub.post(base, OWNER_TOKEN, Map.of("expiresInDays", 0));
    assertThat(noName.status()).isEqualTo(400);
    assertThat(noName.body().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder("name", "expiresInDays");
    assertThat(hub.post(base, OWNER_TOKEN, Map.of("name", "x".repeat(101))).status())
        .isEqualTo(400);
    assertThat(hub.post(base, OWNER_TOKEN, Map.of("name", "x", "expiresInDays", 3651)).status())
        .isEqualTo(400);
    assertThat(hub.post(base, OWNER_TOKEN, Map.of("name", "x", "scopes", List.of("a"))).status())
        .isEqualTo(400);
    assertThat(
            hub.post(base, OWNER_TOKEN, Map.of("name", "x".repeat(100), "expiresInDays", 3650))
                .status())
        .isEqualTo(201);

    // A project that is not in the caller's organization, or a token of another project: 404.
    String unknown = "/api/v2/projects/" + UUID.randomUUID() + "/deploy-tokens";
    assertThat(hub.post(unknown, OWNER_TOKEN, Map.of("name", "x")).status()).isEqualTo(404);
    assertThat(hub.get(unknown, OWNER_TOKEN).status()).isEqualTo(404);
    Project other = project("other");
    assertThat(
            hub.send(
                    "DELETE",
                    "/api/v2/projects/" + other.id() + "/deploy-tokens/" + id,
                    OWNER_TOKEN,
                    null)
                .status())
        .isEqualTo(404);
    assertThat(hub.send("DELETE", base + "/" + UUID.randomUUID(), OWNER_TOKEN, null).status())
        .isEqualTo(404);

    // Issuing is audited with ids and names, never the token.
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where action = 'deploy_token.issued' and target_id = ?"
                    + " and details like '%argocd%' and details like ?",
                id, "%" + p.id() + "%"))
        .isEqualTo(1);
    assertThat(HubTestSupport.count("select count(*) from audit_log where details like '%ghqd_%'"))
        .isZero();
  }
}
