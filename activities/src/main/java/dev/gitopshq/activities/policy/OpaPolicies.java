package dev.gitopshq.activities.policy;

import static dev.gitopshq.activities.policy.OpaHttp.JSON;
import static dev.gitopshq.activities.policy.OpaHttp.checkPath;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.policy.OpaClient.Module;
import dev.gitopshq.activities.policy.OpaHttp.Answer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * The policy modules OPA holds, behind {@link OpaClient} ({@code /v1/policies}): uploading a module
 * (and reading OPA's compile errors when it refuses one), reading one back, listing them all (the
 * listing, which carries every module's syntax tree, is streamed and only each module's id, text
 * and package are kept), and removing one, by a hub-shaped id or by whatever id a listing returned.
 */
final class OpaPolicies {
  private static final MediaType TEXT_TYPE = MediaType.get("text/plain; charset=utf-8");

  private final OpaHttp http;

  OpaPolicies(OpaHttp http) {
    this.http = http;
  }

  /** {@link OpaClient#putPolicy}. */
  void putPolicy(String id, String rego) {
    Request request =
        http.request("/v1/policies/" + checkPath(id))
            .put(RequestBody.create(rego, TEXT_TYPE))
            .build();
    Answer answer = http.send(request, "upload policy " + id, OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() == 200) {
      return;
    }
    if (answer.status() == 400) {
      throw new PolicyCompileException(id, OpaHttp.errors(answer.body()));
    }
    throw http.unexpected("upload policy " + id, answer);
  }

  /** {@link OpaClient#getPolicy}. */
  Optional<String> getPolicy(String id) {
    Request request = http.request("/v1/policies/" + checkPath(id)).get().build();
    Answer answer = http.send(request, "read policy " + id, OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() == 404) {
      return Optional.empty();
    }
    if (answer.status() != 200) {
      throw http.unexpected("read policy " + id, answer);
    }
    JsonNode raw = OpaHttp.parse(answer.body(), "read policy " + id).path("result").get("raw");
    return raw == null || !raw.isTextual() ? Optional.empty() : Optional.of(raw.asText());
  }

  /** {@link OpaClient#listPolicyIds}. */
  List<String> listPolicyIds() {
    List<String> ids = new ArrayList<>();
    OpaHttp.parse(listing(), "list policies")
        .path("result")
        .forEach(p -> ids.add(p.path("id").asText()));
    return ids;
  }

  /** {@link OpaClient#listPolicies}. */
  List<Module> listPolicies() {
    try (JsonParser p = JSON.getFactory().createParser(listing())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new OpaException("OPA's answer to list policies is not a JSON object");
      }
      List<Module> modules = new ArrayList<>();
      while (nextMember(p, "result", JsonToken.START_ARRAY)) {
        while (p.nextToken() == JsonToken.START_OBJECT) {
          modules.add(module(p));
        }
      }
      return modules;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to list policies is not JSON", e);
    } catch (IOException e) {
      throw new OpaException("OPA's answer to list policies cannot be read", e);
    }
  }

  /** OPA's answer to {@code GET /v1/policies}, read up to {@link OpaClient#MAX_LISTING_BYTES}. */
  private byte[] listing() {
    Request request = http.request("/v1/policies").get().build();
    Answer answer = http.send(request, "list policies", OpaClient.MAX_LISTING_BYTES);
    if (answer.status() != 200) {
      throw http.unexpected("list policies", answer);
    }
    return answer.body();
  }

  /** One entry of the listing, the parser on its START_OBJECT; leaves it on its END_OBJECT. */
  private static Module module(JsonParser p) throws IOException {
    String id = null;
    String raw = null;
    List<String> pkg = List.of();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (field.equals("id") && value == JsonToken.VALUE_STRING) {
        id = p.getText();
      } else if (field.equals("raw") && value == JsonToken.VALUE_STRING) {
        raw = p.getText();
      } else if (field.equals("ast") && value == JsonToken.START_OBJECT) {
        pkg = packagePath(p);
      } else {
        p.skipChildren();
      }
    }
    if (id == null || raw == null) {
      throw new OpaException("OPA's answer to list policies has a module without id or text");
    }
    return new Module(id, raw, pkg);
  }

  /** {@code ast.package.path} without its leading {@code data}; the parser on the AST's object. */
  private static List<String> packagePath(JsonParser p) throws IOException {
    List<String> path = new ArrayList<>();
    while (nextMember(p, "package", JsonToken.START_OBJECT)) {
      JsonNode pkg = JSON.readTree(p);
      for (JsonNode term : pkg.path("path")) {
        path.add(term.path("value").asText());
      }
    }
    if (!path.isEmpty() && path.get(0).equals("data")) {
      path.remove(0);
    }
    return path;
  }

  /**
   * Moves the parser, inside an object, to the value of its next member named {@code name} that
   * starts with {@code start}, skipping every other member whole; false at the object's end.
   */
  private static boolean nextMember(JsonParser p, String name, JsonToken start) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      if (p.nextToken() == start && field.equals(name)) {
        return true;
      }
      p.skipChildren();
    }
    return false;
  }

  /** {@link OpaClient#deleteListedPolicy}. */
  void deleteListedPolicy(String id) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("no policy id to delete");
    }
    Request request =
        http.request(http.url("/v1/policies/").newBuilder().addPathSegment(id).build())
            .delete()
            .build();
    Answer answer = http.send(request, "delete a module", OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() != 200 && answer.status() != 404) {
      throw http.unexpected("delete a module", answer);
    }
  }

  /** {@link OpaClient#deletePolicy}. */
  void deletePolicy(String id) {
    Request request = http.request("/v1/policies/" + checkPath(id)).delete().build();
    Answer answer = http.send(request, "delete policy " + id, OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() != 200 && answer.status() != 404) {
      throw http.unexpected("delete policy " + id, answer);
    }
  }
}
