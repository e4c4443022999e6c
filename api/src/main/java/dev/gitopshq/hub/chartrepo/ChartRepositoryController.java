package dev.gitopshq.hub.chartrepo;

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

  @GetMapping("/charts/index.yaml")
  ResponseEntity<String> index() {
    return ResponseEntity.ok().contentType(YAML).body(chart.indexYaml());
  }

  @GetMapping("/charts/{file:.+}")
  ResponseEntity<byte[]> archive(@PathVariable String file) {
    if (!file.equals(chart.fileName())) {
      return ResponseEntity.notFound().build();
    }
    return ResponseEntity.ok().contentType(GZIP).body(chart.archive());
  }
}
