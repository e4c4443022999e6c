package dev.gitopshq.hub.chartrepo;

import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /charts}: a Helm chart repository holding the agent chart this hub was built with, so an
 * install needs no registry of ours ({@code helm upgrade --install … --repo <hub>/charts}). No
 * token is needed: the chart is public information (the registration token travels in {@code
 * --set}). Only the index and the one archive exist; any other name is 404.
 */
@RestController
public class ChartRepositoryController {
  private static final MediaType YAML = MediaType.parseMediaType("application/x-yaml");
  private static final MediaType GZIP = MediaType.parseMediaType("application/gzip");

  private final AgentChartRepository chart;

  public ChartRepositoryController(AgentChartRepository chart) {
    this.chart = chart;
  }

  @GetMapping(value = "/charts/index.yaml", produces = "application/x-yaml")
  @ApiResponse(
      responseCode = "200",
      description = "Helm's repository index (apiVersion v1)",
      content =
          @Content(
              mediaType = "application/x-yaml",
              schema = @Schema(type = "object", description = "apiVersion, entries, generated")))
  ResponseEntity<String> index() {
    return ResponseEntity.ok().contentType(YAML).body(chart.indexYaml());
  }

  @GetMapping(value = "/charts/{file:.+}", produces = "application/gzip")
  @ApiResponse(
      responseCode = "200",
      description = "The chart archive the index names",
      content =
          @Content(
              mediaType = "application/gzip",
              schema = @Schema(type = "string", format = "binary")))
  ResponseEntity<byte[]> archive(@PathVariable String file) {
    if (!file.equals(chart.fileName())) {
      throw ApiException.notFound("chart archive '" + file + "'");
    }
    return ResponseEntity.ok().contentType(GZIP).body(chart.archive());
  }
}
