package dev.gitopshq.agent.v1;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/command-types.json is generated from command_types.proto: the UI's generated module and the
 * Rego test of the approval policy's type list read it. This test fails when the file is stale;
 * {@code make command-types} (this test with {@code -Dcommand-types.write=true}) rewrites it.
 */
class CommandTypesJsonTest {
  static final Path FILE = repoRoot().resolve("docs/command-types.json");

  @Test
  void docsCommandTypesJsonIsGeneratedFromTheProto() throws Exception {
    String generated =
        JsonFormat.printer().includingDefaultValueFields().print(CommandTypes.catalog()) + "\n";
    if (Boolean.getBoolean("command-types.write")) {
      Files.writeString(FILE, generated, StandardCharsets.UTF_8);
    }
    assertThat(Files.exists(FILE)).as("%s is missing: run make command-types", FILE).isTrue();
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
        .as("%s is stale: run make command-types and commit it", FILE)
        .isEqualTo(generated);
  }

  static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("proto").resolve("src"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("not inside the GitOpsHQ repository");
    }
    return p;
  }
}
