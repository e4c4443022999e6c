package dev.gitopshq.hub.delivery.chart;

import dev.gitopshq.activities.delivery.ChartArchiveRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.delivery.DeliveryViews.Items;
import dev.gitopshq.hub.delivery.chart.ChartViews.ChartVersionView;
import dev.gitopshq.hub.delivery.chart.ChartViews.ChartView;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/charts}: the organization's Helm chart registry. Upload a chart version as the raw
 * .tgz body (application/gzip, application/x-gzip or application/octet-stream) or as the form field
 * {@code chart} of multipart/form-data; at most 10 MiB.
 */
@RestController
@RequestMapping("/api/v2/charts")
public class ChartController {
  private final ChartService charts;

  public ChartController(ChartService charts) {
    this.charts = charts;
  }

  /** The multipart form of an upload, for the OpenAPI document. */
  record ChartForm(
      @Schema(type = "string", format = "binary", requiredMode = Schema.RequiredMode.REQUIRED)
          String chart) {}

  static ApiException tooLarge() {
    return new ApiException(
        new ApiError(413, "payload_too_large", "a chart archive must be at most 10 MiB", null));
  }

  @PostMapping
  @RequestBody(
      required = true,
      description = "The chart's .tgz (at most 10 MiB), as the body or as form field 'chart'",
      content = {
        @Content(
            mediaType = "application/gzip",
            schema = @Schema(type = "string", format = "binary")),
        @Content(
            mediaType = "multipart/form-data",
            schema = @Schema(implementation = ChartForm.class))
      })
  @ApiResponse(
      responseCode = "201",
      description = "The version was uploaded",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = ChartVersionView.class)))
  @ApiResponse(
      responseCode = "200",
      description = "This exact archive was already there",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = ChartVersionView.class)))
  ResponseEntity<ChartVersionView> upload(HttpServletRequest request) throws IOException {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    byte[] archive = read(request);
    ChartService.Uploaded u = charts.upload(caller, archive);
    return ResponseEntity.status(u.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(ChartVersionView.of(u.version()));
  }

  private static byte[] read(HttpServletRequest request) throws IOException {
    String type =
        request.getContentType() == null ? "" : request.getContentType().toLowerCase(Locale.ROOT);
    if (type.startsWith("multipart/form-data")) {
      Part part;
      try {
        part = request.getPart("chart");
      } catch (ServletException e) {
        throw ApiException.invalid("chart", "the form has no readable field 'chart'");
      }
      if (part == null) {
        throw ApiException.invalid("chart", "is required (the form field holding the .tgz)");
      }
      if (part.getSize() > ChartService.MAX_ARCHIVE_BYTES) {
        throw tooLarge();
      }
      try (InputStream in = part.getInputStream()) {
        return readLimited(in);
      }
    }
    if (!(type.startsWith("application/gzip")
        || type.startsWith("application/x-gzip")
        || type.startsWith("application/octet-stream"))) {
      throw new ApiException(
          new ApiError(
              415,
              "unsupported_media_type",
              "send the chart .tgz as application/gzip, application/x-gzip, application/octet-stream"
                  + " or multipart/form-data (field 'chart')",
              null));
    }
    // No early answer on Content-Length: reading up to the limit first lets the server drain a
    // body that is only a little too large, so the client gets the 413 instead of a reset.
    try (InputStream in = request.getInputStream()) {
      return readLimited(in);
    }
  }

  private static byte[] readLimited(InputStream in) throws IOException {
    byte[] bytes = in.readNBytes(ChartService.MAX_ARCHIVE_BYTES + 1);
    if (bytes.length > ChartService.MAX_ARCHIVE_BYTES) {
      throw tooLarge();
    }
    if (bytes.length == 0) {
      throw ApiException.invalid("chart", "is required: send the chart's .tgz as the body");
    }
    return bytes;
  }

  @GetMapping
  Items<ChartView> list() {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(charts.list(caller.orgId()).stream().map(ChartView::of).toList());
  }

  @GetMapping("/{name}")
  ChartView get(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return ChartView.of(charts.get(caller.orgId(), name));
  }

  @GetMapping("/{name}/versions/{version}")
  ChartVersionView version(@PathVariable String name, @PathVariable String version) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return ChartVersionView.of(charts.version(caller.orgId(), name, version));
  }

  @GetMapping("/{name}/versions/{version}/archive")
  @ApiResponse(
      responseCode = "200",
      description = "The chart's .tgz",
      content =
          @Content(
              mediaType = "application/gzip",
              schema = @Schema(type = "string", format = "binary")))
  ResponseEntity<byte[]> archive(@PathVariable String name, @PathVariable String version) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    ChartArchiveRow a = charts.archive(caller.orgId(), name, version);
    return ResponseEntity.ok()
        .contentType(MediaType.parseMediaType("application/gzip"))
        .header(
            HttpHeaders.CONTENT_DISPOSITION,
            ContentDisposition.attachment()
                .filename(name + "-" + version + ".tgz")
                .build()
                .toString())
        .header("X-Checksum-Sha256", a.digest())
        .body(a.archive());
  }

  @DeleteMapping("/{name}/versions/{version}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name, @PathVariable String version) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    charts.deleteVersion(caller, name, version);
  }
}
