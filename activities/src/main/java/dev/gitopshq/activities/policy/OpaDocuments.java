package dev.gitopshq.activities.policy;

import static dev.gitopshq.activities.policy.OpaHttp.JSON;
import static dev.gitopshq.activities.policy.OpaHttp.checkPath;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.gitopshq.activities.policy.OpaHttp.Answer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * OPA's documents, behind {@link OpaClient} ({@code /v1/data}): writing a whole base document that
 * policies read (the hub's one is an organization's freeze windows) and evaluating a document for a
 * decision. An evaluation's input is written straight into the request's bytes and only the
 * answer's {@code result} is read into a tree; a failure inside OPA (status 500) becomes a {@link
 * PolicyEvaluationException} listing OPA's errors.
 */
final class OpaDocuments {
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  private static final byte[] EMPTY_INPUT = "{}".getBytes(StandardCharsets.UTF_8);

  private final OpaHttp http;

  OpaDocuments(OpaHttp http) {
    this.http = http;
  }

  /** {@link OpaClient#putData}. */
  void putData(String path, JsonNode value) {
    if (value == null || value.isMissingNode()) {
      throw new IllegalArgumentException("no document to write at " + path);
    }
    byte[] payload;
    try {
      payload = JSON.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the document cannot be written as JSON", e);
    }
    Request request =
        http.request("/v1/data/" + checkPath(path))
            .put(RequestBody.create(payload, JSON_TYPE))
            .build();
    Answer answer = http.send(request, "write data " + path, OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() != 204 && answer.status() != 200) {
      throw http.unexpected("write data " + path, answer);
    }
  }

  /** {@link OpaClient#evaluate}. */
  JsonNode evaluate(String path, JsonNode input) {
    String what = "evaluate " + path;
    Request request =
        http.request("/v1/data/" + checkPath(path))
            .post(RequestBody.create(inputDocument(input), JSON_TYPE))
            .build();
    Answer answer = http.send(request, what, OpaClient.MAX_ANSWER_BYTES);
    if (answer.status() == 200) {
      return result(answer.body(), what);
    }
    if (answer.status() == 500) {
      List<OpaError> errors = OpaHttp.errors(answer.body());
      throw new PolicyEvaluationException(
          "evaluating "
              + path
              + " failed in OPA: "
              + (errors.isEmpty()
                  ? "status 500"
                  : errors.stream().map(OpaError::describe).reduce((a, b) -> a + "; " + b).get()));
    }
    throw http.unexpected(what, answer);
  }

  /** {@code {"input": input}}, or {@code {}} without input, as bytes. */
  private static byte[] inputDocument(JsonNode input) {
    if (input == null || input.isNull() || input.isMissingNode()) {
      return EMPTY_INPUT;
    }
    try (ByteArrayBuilder bytes = new ByteArrayBuilder(512);
        JsonGenerator g = JSON.getFactory().createGenerator(bytes)) {
      g.writeStartObject();
      g.writeFieldName("input");
      JSON.writeTree(g, input);
      g.writeEndObject();
      g.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalArgumentException("the input document cannot be written as JSON", e);
    }
  }

  /** The {@code result} member of OPA's answer; the other members are skipped, not read. */
  private static JsonNode result(byte[] body, String what) {
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new OpaException("OPA's answer to " + what + " is not a JSON object");
      }
      JsonNode result = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if (result == null && name.equals("result")) {
          result = JSON.readTree(p);
        } else {
          p.skipChildren();
        }
      }
      return result == null ? MissingNode.getInstance() : result;
    } catch (JsonProcessingException e) {
      throw new OpaException("OPA's answer to " + what + " is not JSON", e);
    } catch (IOException e) {
      throw new OpaException("OPA's answer to " + what + " cannot be read", e);
    }
  }
}
