package dev.gitopshq.hub.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * How large a request body may be, per kind of route ({@code gitopshq.limits.*}), checked by {@link
 * RequestSizeFilter} before anything reads the body.
 *
 * @param webhookBody the unauthenticated image-update webhook (GITOPSHQ_LIMITS_WEBHOOKBODY): a
 *     signed JSON document of a few fields
 * @param jsonBody every other API request (GITOPSHQ_LIMITS_JSONBODY)
 * @param chartUpload {@code POST /api/v2/charts}, the archive and its form (the archive itself is
 *     at most 10 MiB)
 * @param gitBody Git's smart-HTTP requests (the fetch negotiation of a large repository)
 */
@ConfigurationProperties("gitopshq.limits")
public record RequestLimits(
    @DefaultValue("256KB") DataSize webhookBody,
    @DefaultValue("4MB") DataSize jsonBody,
    @DefaultValue("11MB") DataSize chartUpload,
    @DefaultValue("16MB") DataSize gitBody) {

  /** The limit for a request, by method and path. */
  public long limitFor(String method, String path) {
    if (path.startsWith("/api/v2/webhooks/")) {
      return webhookBody.toBytes();
    }
    if ("POST".equals(method)
        && (path.equals("/api/v2/charts") || path.equals("/api/v2/charts/"))) {
      return chartUpload.toBytes();
    }
    if (path.startsWith("/git/")) {
      return gitBody.toBytes();
    }
    return jsonBody.toBytes();
  }
}
