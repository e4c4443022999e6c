package dev.gitopshq.agent.identity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON form of an {@link AgentIdentity}, shared by the file and Secret stores: {@code
 * {"clusterId": ..., "agentToken": ..., "hubAddress": ..., "registeredAt": "<ISO-8601>"}}. Unknown
 * fields are ignored so that a newer agent's file still loads after a downgrade.
 */
final class IdentityJson {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private IdentityJson() {}

  static byte[] encode(AgentIdentity identity) {
    Map<String, String> json = new LinkedHashMap<>();
    json.put("clusterId", identity.clusterId());
    json.put("agentToken", identity.agentToken());
    json.put("hubAddress", identity.hubAddress());
    json.put("registeredAt", identity.registeredAt().toString());
    if (identity.certificate() != null) {
      json.put("clientKeyPem", identity.certificate().keyPem());
      json.put("clientCertificatePem", identity.certificate().certificatePem());
      json.put("clientCaPem", identity.certificate().caPem());
    }
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      // Serialising a map of strings cannot fail; the cause is kept, the content is not.
      throw new IdentityStoreException("cannot encode the agent identity", e);
    }
  }

  /**
   * Decodes an identity.
   *
   * @param where the store location, for the error message
   */
  static AgentIdentity decode(byte[] bytes, String where) {
    JsonNode json;
    try {
      json = MAPPER.readTree(bytes);
    } catch (IOException e) {
      // Jackson's message can quote the input, which holds the token; it is left out.
      throw new IdentityStoreException("the agent identity in " + where + " is not valid JSON");
    }
    if (json == null || !json.isObject()) {
      throw new IdentityStoreException("the agent identity in " + where + " is not a JSON object");
    }
    try {
      return new AgentIdentity(
          text(json, "clusterId", where),
          text(json, "agentToken", where),
          text(json, "hubAddress", where),
          Instant.parse(text(json, "registeredAt", where)),
          certificate(json, where));
    } catch (DateTimeParseException e) {
      throw new IdentityStoreException(
          "the agent identity in " + where + " has an invalid registeredAt timestamp");
    }
  }

  /** The client certificate, null when the identity has none (older agents, plaintext hubs). */
  private static ClientCredential certificate(JsonNode json, String where) {
    if (!json.hasNonNull("clientCertificatePem")) {
      return null;
    }
    try {
      return new ClientCredential(
          text(json, "clientKeyPem", where),
          text(json, "clientCertificatePem", where),
          json.path("clientCaPem").asText(""));
    } catch (IllegalArgumentException e) {
      // The message names the field, never the key.
      throw new IdentityStoreException(
          "the agent identity in "
              + where
              + " has an unusable client certificate: "
              + e.getMessage());
    }
  }

  private static String text(JsonNode json, String field, String where) {
    JsonNode value = json.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new IdentityStoreException(
          "the agent identity in " + where + " has no '" + field + "'");
    }
    return value.asText();
  }
}
