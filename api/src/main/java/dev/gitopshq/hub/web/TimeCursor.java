package dev.gitopshq.hub.web;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

/**
 * The opaque {@code cursor} of lists ordered by a time and an id (commands, drift findings): the
 * last row's time and id, base64url-encoded. The next page starts after it.
 */
public record TimeCursor(Instant at, UUID id) {

  /** The cursor a client sent back. */
  public static TimeCursor parse(String cursor) {
    try {
      String[] parts =
          new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\\|");
      return new TimeCursor(Instant.parse(parts[0]), UUID.fromString(parts[1]));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("is not a cursor this API returned", e);
    }
  }

  /** The text a client sends back for the page after this row. */
  public String encode() {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((at + "|" + id).getBytes(StandardCharsets.UTF_8));
  }
}
