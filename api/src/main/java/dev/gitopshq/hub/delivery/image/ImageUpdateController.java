package dev.gitopshq.hub.delivery.image;

import dev.gitopshq.hub.delivery.DeliveryViews.Outcome;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v2/webhooks/image-update}: authenticated by the project's webhook secret
 * (HMAC-SHA256 of the raw body), not by a bearer token; see docs/api.md.
 */
@RestController
public class ImageUpdateController {
  private final ImageUpdateWebhook webhook;

  public ImageUpdateController(ImageUpdateWebhook webhook) {
    this.webhook = webhook;
  }

  @PostMapping(path = "/api/v2/webhooks/image-update")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      description = "The signed JSON document (docs/api.md#image-update-webhook)",
      content = @Content(mediaType = "application/json", schema = @Schema(type = "object")))
  @ResponseStatus(HttpStatus.ACCEPTED)
  Outcome imageUpdate(
      @RequestBody(required = false) byte[] body,
      @RequestHeader(name = ImageUpdateWebhook.SIGNATURE_HEADER, required = false) String signature,
      @RequestHeader(name = ImageUpdateWebhook.TIMESTAMP_HEADER, required = false) String timestamp,
      @RequestHeader(name = ImageUpdateWebhook.DELIVERY_HEADER, required = false) String delivery) {
    return Outcome.of(
        webhook.handle(body == null ? new byte[0] : body, signature, timestamp, delivery));
  }
}
