package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void tableAlignsColumnsUnderUpperCaseHeaders() throws Exception {
    JsonNode rows =
        JSON.readTree(
            "[{\"name\":\"prod-eu\",\"status\":\"Connected\",\"actor\":{\"name\":\"ada\"}},"
                + "{\"name\":\"x\",\"status\":\"Pending\"}]");
    String t =
        Output.table(
            rows,
            List.of(
                Output.Column.of("Name", "name"),
                Output.Column.of("Status", "status"),
                Output.Column.of("Actor", "/actor/name")));
    assertThat(t)
        .isEqualTo(
            "NAME     STATUS     ACTOR\n" + "prod-eu  Connected  ada\n" + "x        Pending\n");
  }

  @Test
  void cellsStayOnOneLineAndCarryNoEscapeSequences() throws Exception {
    JsonNode rows = JSON.readTree("[{\"name\":\"a\\nb\\u001b[31mred\"}]");
    String t = Output.table(rows, List.of(Output.Column.of("Name", "name")));
    assertThat(t).isEqualTo("NAME\na b [31mred\n").doesNotContain("\u001b");
  }

  @Test
  void arraysAndObjectsAreShownCompactly() throws Exception {
    assertThat(Output.text(JSON.readTree("[\"observe\",\"argocd.read\"]")))
        .isEqualTo("observe,argocd.read");
    assertThat(Output.text(JSON.readTree("{\"tier\":\"prod\",\"team\":\"x\"}")))
        .isEqualTo("tier=prod,team=x");
  }

  @Test
  void yamlAndJsonPrintTheObjectAsItCame() throws Exception {
    JsonNode v = JSON.readTree("{\"items\":[{\"name\":\"a\"}]}");
    StringWriter w = new StringWriter();
    new Output(Output.Format.yaml, new PrintWriter(w)).print(v, List.of(), List.of());
    assertThat(w.toString()).isEqualTo("items:\n- name: a\n");
    w = new StringWriter();
    new Output(Output.Format.json, new PrintWriter(w)).print(v, List.of(), List.of());
    assertThat(JSON.readTree(w.toString())).isEqualTo(v);
  }
}
