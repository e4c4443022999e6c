package dev.gitopshq.activities.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;

class ChartArchiveTest {
  private static final String CHART_YAML = "apiVersion: v2\nname: demo\nversion: 0.1.0\n";

  private static byte[] withChartYaml(String chartYaml) {
    return TarGz.create()
        .file("demo/Chart.yaml", chartYaml)
        .file("demo/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
        .build();
  }

  private static void refused(byte[] archive, String reason) {
    assertThatThrownBy(() -> ChartArchive.inspect(archive))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageContaining(reason);
  }

  @Test
  void readsChartYamlAndDigestOfAnAcceptedChart() throws Exception {
    byte[] archive = TarGz.webapp().build();

    ChartArchive.Info info = ChartArchive.inspect(archive);

    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive));
    assertThat(info)
        .isEqualTo(
            new ChartArchive.Info(
                "webapp",
                "1.2.0",
                "2.4.1",
                "A small web application chart used by the rendering tests",
                sha));
  }

  @Test
  void acceptsDirectoryEntriesAndLeavesOptionalFieldsNull() {
    byte[] archive =
        TarGz.create()
            .dir("demo")
            .dir("demo/templates")
            .file("demo/Chart.yaml", "apiVersion: v1\nname: demo\nversion: 1.0.0-rc.1+build.5\n")
            .file(
                "demo/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
            .build();

    ChartArchive.Info info = ChartArchive.inspect(archive);

    assertThat(info.version()).isEqualTo("1.0.0-rc.1+build.5");
    assertThat(info.appVersion()).isNull();
    assertThat(info.description()).isNull();
  }

  @Test
  void refusesWhatIsNotGzip() {
    refused("apiVersion: v2\n".getBytes(StandardCharsets.UTF_8), "not gzip-compressed");
    refused(new byte[0], "the archive is empty");
  }

  @Test
  void refusesGzipThatIsNotTar() {
    byte[] random = new byte[4096];
    new java.util.Random(7).nextBytes(random);
    refused(TarGz.gzip(random), "not a valid tar.gz file");
    refused(TarGz.gzip(new byte[0]), "holds no files");
  }

  @Test
  void refusesCorruptGzip() {
    byte[] archive = TarGz.webapp().build();
    byte[] truncated = java.util.Arrays.copyOf(archive, archive.length / 2);
    assertThatThrownBy(() -> ChartArchive.inspect(truncated))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageStartingWith("the archive is not a valid");
  }

  @Test
  void refusesMoreThanTenMebibytesCompressed() {
    byte[] big = new byte[(int) ChartArchive.MAX_COMPRESSED_BYTES + 1];
    big[0] = 0x1f;
    big[1] = (byte) 0x8b;
    refused(big, "at most 10485760 bytes (10 MiB) are accepted");
  }

  @Test
  void refusesAGzipBombOverFiftyMebibytesUnpacked() {
    byte[] zeros = new byte[(int) ChartArchive.MAX_UNCOMPRESSED_BYTES + 1024];
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .file("demo/files/zeros.bin", zeros)
            .build();
    assertThat(archive.length).isLessThan(1024 * 1024);
    refused(archive, "unpacks to more than 52428800 bytes (50 MiB)");
  }

  @Test
  void refusesMoreThanFiveThousandEntries() {
    TarGz t = TarGz.create().file("demo/Chart.yaml", CHART_YAML);
    for (int i = 0; i < ChartArchive.MAX_ENTRIES; i++) {
      t.file("demo/files/f" + i, "x");
    }
    refused(t.build(), "more than 5000 entries");
  }

  @Test
  void refusesATraversalEntry() {
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .file("demo/../../etc/cron.d/evil", "* * * * * root sh")
            .build();
    refused(archive, "entry 'demo/../../etc/cron.d/evil' must not contain '..'");
  }

  @Test
  void refusesAnAbsoluteEntry() {
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .file("/etc/cron.d/evil", "* * * * * root sh")
            .build();
    refused(archive, "entry '/etc/cron.d/evil' must be relative, not absolute");
  }

  @Test
  void refusesABackslashEntry() {
    byte[] archive =
        TarGz.create().file("demo/Chart.yaml", CHART_YAML).file("demo\\..\\evil", "x").build();
    refused(archive, "must use '/' as the separator");
  }

  @Test
  void refusesAnEntryOutsideTheChartDirectory() {
    refused(
        TarGz.create().file("demo/Chart.yaml", CHART_YAML).file("README.md", "hi").build(),
        "entry 'README.md' is not inside the chart directory");
    refused(
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .file("other/Chart.yaml", CHART_YAML)
            .build(),
        "entries lie under both 'demo/' and 'other/'");
  }

  @Test
  void refusesASymbolicLinkPointingOut() {
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .symlink("demo/templates/secret.yaml", "/etc/shadow")
            .build();
    refused(
        archive,
        "symbolic links are not allowed in a chart archive: demo/templates/secret.yaml -> /etc/shadow");
  }

  @Test
  void refusesAHardLink() {
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .hardlink("demo/values.yaml", "demo/Chart.yaml")
            .build();
    refused(
        archive,
        "hard links are not allowed in a chart archive: demo/values.yaml -> demo/Chart.yaml");
  }

  @Test
  void refusesDevicesAndFifos() {
    refused(
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .special("demo/tty", TarConstants.LF_CHR)
            .build(),
        "device files are not allowed in a chart archive: demo/tty");
    refused(
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .special("demo/pipe", TarConstants.LF_FIFO)
            .build(),
        "named pipes (FIFOs) are not allowed in a chart archive: demo/pipe");
  }

  @Test
  void refusesADuplicateEntry() {
    byte[] archive =
        TarGz.create()
            .file("demo/Chart.yaml", CHART_YAML)
            .file("demo/values.yaml", "a: 1\n")
            .file("demo/values.yaml", "a: 2\n")
            .build();
    refused(archive, "entry 'demo/values.yaml' appears twice");
  }

  @Test
  void refusesAnArchiveWithoutChartYaml() {
    byte[] archive = TarGz.create().file("demo/values.yaml", "a: 1\n").build();
    refused(archive, "the archive has no demo/Chart.yaml");
  }

  @Test
  void refusesChartYamlThatIsNotYaml() {
    refused(withChartYaml("name: [unclosed\n"), "demo/Chart.yaml is not valid YAML");
    refused(withChartYaml("- a list\n"), "demo/Chart.yaml must be a YAML mapping");
  }

  @Test
  void refusesChartYamlWithoutNameOrVersion() {
    refused(withChartYaml("apiVersion: v2\nversion: 1.0.0\n"), "demo/Chart.yaml has no name");
    refused(
        withChartYaml("apiVersion: v2\nname: demo\n"), "Chart.yaml of chart demo has no version");
  }

  @Test
  void refusesAnUnknownApiVersion() {
    refused(
        withChartYaml("apiVersion: v3\nname: demo\nversion: 1.0.0\n"),
        "apiVersion must be v1 or v2, not 'v3'");
    refused(
        withChartYaml("name: demo\nversion: 1.0.0\n"), "apiVersion must be v1 or v2, not missing");
  }

  @Test
  void refusesAVersionThatIsNotSemVer2() {
    for (String bad : new String[] {"1.2", "v1.2.3", "01.2.3", "1.2.3-", "latest"}) {
      refused(
          withChartYaml("apiVersion: v2\nname: demo\nversion: \"" + bad + "\"\n"),
          "version '" + bad + "' of chart demo is not a SemVer 2 version");
    }
  }

  @Test
  void refusesALibraryChart() {
    refused(
        withChartYaml("apiVersion: v2\nname: demo\nversion: 1.0.0\ntype: library\n"),
        "chart demo is a library chart");
  }

  @Test
  void refusesAChartHelmCannotLoadWithHelmsReason() {
    byte[] archive = TarGz.webappWith("webapp/values.yaml", "image: [unclosed\n");

    assertThatThrownBy(() -> ChartArchive.inspect(archive))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageStartingWith("Helm cannot load the chart: ")
        .hasMessageContaining("values.yaml");
  }

  @Test
  void refusesATemplateThatDoesNotParse() {
    byte[] archive =
        TarGz.webappWith("webapp/templates/broken.yaml", "kind: ConfigMap\nname: {{ .Values.x \n");

    assertThatThrownBy(() -> ChartArchive.inspect(archive))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageStartingWith("Helm cannot load the chart: ")
        .hasMessageContaining("parse error at (webapp/templates/broken.yaml")
        .hasMessageNotContaining("--debug");
  }

  @Test
  void refusesADependencyMissingFromChartsDirectory() {
    byte[] archive =
        withChartYaml(
            """
        apiVersion: v2
        name: demo
        version: 1.0.0
        dependencies:
          - name: redis
            version: 19.0.0
            repository: https://charts.example.com
        """);

    assertThatThrownBy(() -> ChartArchive.inspect(archive))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageStartingWith("Helm cannot load the chart: ")
        .hasMessageContaining("missing in charts/ directory: redis");
  }

  @Test
  void acceptsAChartThatNeedsValuesToRender() {
    byte[] archive =
        TarGz.webappWith(
            "webapp/templates/required.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n");

    assertThat(ChartArchive.inspect(archive).name()).isEqualTo("webapp");
  }
}
