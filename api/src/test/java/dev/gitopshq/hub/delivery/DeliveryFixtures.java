package dev.gitopshq.hub.delivery;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.eclipse.jgit.lib.ObjectId;

/** Helpers for the object model's integration tests: names, charts, raw requests, Git reads. */
public final class DeliveryFixtures {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final HubTestSupport hub;

  public DeliveryFixtures(HubTestSupport hub) {
    this.hub = hub;
  }

  static String uniq(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  // ---- charts ---------------------------------------------------------------------------

  /** A small, real Helm chart archive: Chart.yaml, values.yaml and one template. */
  public static byte[] chart(String name, String version, String description) {
    return tgz(
        Map.of(
            name + "/Chart.yaml",
            "apiVersion: v2\nname: "
                + name
                + "\nversion: "
                + version
                + "\nappVersion: \""
                + version
                + "\"\ndescription: "
                + description
                + "\ntype: application\n",
            name + "/values.yaml",
            "replicaCount: 1\nimage:\n  repository: nginx\n  tag: stable\n",
            name + "/templates/deployment.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n"
                + "  replicas: {{ .Values.replicaCount }}\n  template:\n    spec:\n      containers:\n"
                + "        - name: app\n          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n"));
  }

  /** A chart directory packed like {@code helm package} does: its files under its own name. */
  public static byte[] pack(Path chartDir) {
    Map<String, String> files = new java.util.TreeMap<>();
    try (var walk = Files.walk(chartDir)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            chartDir.getFileName() + "/" + chartDir.relativize(f).toString().replace('\\', '/'),
            Files.readString(f));
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return tgz(files);
  }

  static byte[] tgz(Map<String, String> files) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
      for (Map.Entry<String, String> f : new java.util.TreeMap<>(files).entrySet()) {
        byte[] content = f.getValue().getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry e = new TarArchiveEntry(f.getKey());
        e.setSize(content.length);
        tar.putArchiveEntry(e);
        tar.write(content);
        tar.closeArchiveEntry();
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  /** POST /api/v2/charts with a raw body of the given content type. */
  public Response upload(String token, byte[] body, String contentType) {
    return raw("POST", "/api/v2/charts", token, body, Map.of("Content-Type", contentType));
  }

  /** POST /api/v2/charts as multipart/form-data with the archive in field {@code chart}. */
  Response uploadMultipart(String token, byte[] archive) {
    String boundary = "gitopshq" + UUID.randomUUID().toString().replace("-", "");
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"chart\"; filename=\"c.tgz\"\r\n"
                + "Content-Type: application/gzip\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    b.writeBytes(archive);
    b.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
    return raw(
        "POST",
        "/api/v2/charts",
        token,
        b.toByteArray(),
        Map.of("Content-Type", "multipart/form-data; boundary=" + boundary));
  }

  /** A request with a raw body; the answer's body is parsed as JSON when it is JSON. */
  Response raw(String method, String path, String token, byte[] body, Map<String, String> headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    headers.forEach(b::header);
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    try {
      HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      String text = new String(r.body(), StandardCharsets.UTF_8);
      JsonNode json = null;
      if (r.headers().firstValue("Content-Type").orElse("").contains("json")
          && r.body().length > 0) {
        json = JSON.readTree(text);
      }
      return new Response(r.statusCode(), json, text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  byte[] download(String path, String token) {
    HttpRequest r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    try {
      HttpResponse<byte[]> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofByteArray());
      assertThat(resp.statusCode()).isEqualTo(200);
      assertThat(resp.headers().firstValue("Content-Type").orElse(""))
          .startsWith("application/gzip");
      return resp.body();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  int port() {
    return Integer.parseInt(hub.context().getEnvironment().getProperty("local.server.port"));
  }

  // ---- setup through the API ---------------------------------------------------------------

  JsonNode ok(Response r, int status) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    return r.body();
  }

  /** A project with the given name; returns its id. */
  String project(String name) {
    return ok(
            hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", name, "description", "test")),
            201)
        .get("id")
        .asText();
  }

  String environment(String name) {
    ok(hub.post("/api/v2/environments", OWNER_TOKEN, Map.of("name", name)), 201);
    return name;
  }

  String tenant(String name) {
    ok(
        hub.post(
            "/api/v2/tenants",
            OWNER_TOKEN,
            Map.of("name", name, "displayName", name.toUpperCase())),
        201);
    return name;
  }

  String cluster(String name) {
    ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)), 201);
    return name;
  }

  /** Uploads a chart version; returns its name. */
  String chartVersion(String name, String version) {
    Response r = upload(OWNER_TOKEN, chart(name, version, "A test chart"), "application/gzip");
    assertThat(r.status()).as(r.raw()).isIn(200, 201);
    return name;
  }

  Response put(String path, String token, Object body) {
    return hub.send("PUT", path, token, body);
  }

  Response delete(String path, String token) {
    return hub.send("DELETE", path, token, null);
  }

  String memberToken(String role) {
    Response m =
        hub.post(
            "/api/v2/members",
            OWNER_TOKEN,
            Map.of("email", uniq(role) + "@example.com", "name", "A " + role, "role", role));
    assertThat(m.status()).isEqualTo(201);
    hub.grantEverything(m.body().get("id").asText()); // roles, not grants, are under test
    return ok(
            hub.post(
                "/api/v2/members/" + m.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "t")),
            201)
        .get("token")
        .asText();
  }

  String serviceAccountToken(List<String> scopes) {
    Response sa =
        hub.post(
            "/api/v2/service-accounts", OWNER_TOKEN, Map.of("name", uniq("ci"), "scopes", scopes));
    assertThat(sa.status()).as(sa.raw()).isEqualTo(201);
    return ok(
            hub.post(
                "/api/v2/service-accounts/" + sa.body().get("id").asText() + "/tokens",
                OWNER_TOKEN,
                Map.of("name", "pipeline")),
            201)
        .get("token")
        .asText();
  }

  // ---- the hosted repository -------------------------------------------------------------------

  static UUID orgOf(String projectId) {
    try (Connection c = HubTestSupport.db();
        PreparedStatement ps = c.prepareStatement("select org_id from projects where id = ?")) {
      ps.setObject(1, UUID.fromString(projectId));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getObject(1, UUID.class) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static long revision(String projectId) {
    return HubTestSupport.count(
        "select config_revision from projects where id = ?", UUID.fromString(projectId));
  }

  ProjectRepos repos() {
    return hub.bean(ProjectRepos.class);
  }

  /**
   * main's configuration commits, newest first. The delivery generator's commits (the rendered
   * output of each revision, which land on main as generations finish) are left out.
   */
  List<ProjectRepos.CommitInfo> log(String projectId) {
    return repos()
        .log(orgOf(projectId), UUID.fromString(projectId), ProjectRepos.MAIN, 1000)
        .stream()
        .filter(c -> !c.author().equals("GitOpsHQ delivery generator"))
        .toList();
  }

  /** main's config/ files, by path relative to config/. */
  SortedMap<String, byte[]> config(String projectId) {
    UUID org = orgOf(projectId);
    UUID id = UUID.fromString(projectId);
    ObjectId head = repos().head(org, id, ProjectRepos.MAIN).orElseThrow();
    return repos().readFiles(org, id, head, "config");
  }

  String configFile(String projectId, String path) {
    byte[] b = config(projectId).get(path);
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
