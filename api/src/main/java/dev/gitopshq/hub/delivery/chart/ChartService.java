package dev.gitopshq.hub.delivery.chart;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ChartArchiveRow;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ChartRow;
import dev.gitopshq.activities.delivery.ChartVersionRow;
import dev.gitopshq.activities.render.ChartArchive;
import dev.gitopshq.activities.render.InvalidChartException;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The organization's Helm chart registry: uploads checked by {@link ChartArchive}, immutable
 * versions.
 */
@Service
public class ChartService {
  /** The largest archive accepted. */
  public static final int MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;

  private final ChartMapper charts;
  private final AuditLog audit;
  private final Clock clock;

  public ChartService(ChartMapper charts, AuditLog audit, Clock clock) {
    this.charts = charts;
    this.audit = audit;
    this.clock = clock;
  }

  /**
   * An upload's outcome.
   *
   * @param created false when this exact archive was uploaded before (idempotent)
   */
  public record Uploaded(ChartVersionRow version, boolean created) {}

  /**
   * Checks and stores an archive as a new chart version.
   *
   * @throws ApiException 400 (field {@code chart}) with the reason an archive is refused, 409 when
   *     the version exists with other content
   */
  @Transactional
  public Uploaded upload(HubPrincipal caller, byte[] archive) {
    ChartArchive.Info info;
    try {
      info = ChartArchive.inspect(archive);
    } catch (InvalidChartException e) {
      throw ApiException.invalid("chart", e.getMessage());
    }
    Checks c = new Checks();
    c.dnsLabel("chart", info.name());
    c.throwIfInvalid();
    UUID orgId = caller.orgId();
    Instant now = clock.instant();
    String description = info.description() == null ? "" : info.description();
    charts.insertIfAbsent(new ChartRow(UUID.randomUUID(), orgId, info.name(), description, now));
    ChartRow chart = charts.findByName(orgId, info.name()).orElseThrow();
    var existing = charts.findVersion(orgId, chart.id(), info.version());
    if (existing.isPresent()) {
      return same(existing.get(), info);
    }
    int inserted =
        charts.insertVersion(
            orgId,
            chart.id(),
            info.version(),
            info.appVersion() == null ? "" : info.appVersion(),
            description,
            info.digest(),
            archive.length,
            archive,
            caller.id(),
            now);
    if (inserted == 0) {
      // Another upload of this version committed between our read and our insert.
      return same(charts.findVersion(orgId, chart.id(), info.version()).orElseThrow(), info);
    }
    charts.setDescription(orgId, chart.id(), description);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("chart", info.name());
    d.put("version", info.version());
    d.put("digest", info.digest());
    d.put("size", archive.length);
    audit.record(
        orgId, caller.actor(), "chart.version_uploaded", "chart", chart.id().toString(), d);
    return new Uploaded(charts.findVersion(orgId, chart.id(), info.version()).orElseThrow(), true);
  }

  private static Uploaded same(ChartVersionRow stored, ChartArchive.Info info) {
    if (!stored.digest().equals(info.digest())) {
      throw ApiException.conflict(
          "chart versions are immutable: "
              + info.name()
              + " "
              + info.version()
              + " was uploaded with other content (sha256 "
              + stored.digest()
              + "); publish a new version");
    }
    return new Uploaded(stored, false);
  }

  /** A chart with its versions, newest first. */
  public record ChartWithVersions(ChartRow chart, List<ChartVersionRow> versions) {}

  @Transactional(readOnly = true)
  public List<ChartWithVersions> list(UUID orgId) {
    Map<UUID, List<ChartVersionRow>> byChart = new LinkedHashMap<>();
    for (ChartVersionRow v : charts.allVersions(orgId)) {
      byChart.computeIfAbsent(v.chartId(), k -> new ArrayList<>()).add(v);
    }
    return charts.list(orgId).stream()
        .map(c -> new ChartWithVersions(c, newestFirst(byChart.getOrDefault(c.id(), List.of()))))
        .toList();
  }

  @Transactional(readOnly = true)
  public ChartWithVersions get(UUID orgId, String name) {
    ChartRow chart = chart(orgId, name);
    return new ChartWithVersions(chart, newestFirst(charts.versions(orgId, chart.id())));
  }

  @Transactional(readOnly = true)
  public ChartVersionRow version(UUID orgId, String name, String version) {
    ChartRow chart = chart(orgId, name);
    return charts
        .findVersion(orgId, chart.id(), version)
        .orElseThrow(() -> ApiException.notFound("chart " + name + " version " + version));
  }

  @Transactional(readOnly = true)
  public ChartArchiveRow archive(UUID orgId, String name, String version) {
    ChartRow chart = chart(orgId, name);
    return charts
        .archive(orgId, chart.id(), version)
        .orElseThrow(() -> ApiException.notFound("chart " + name + " version " + version));
  }

  /** Deletes a version no workload uses; the chart goes with its last version. */
  @Transactional
  public void deleteVersion(HubPrincipal caller, String name, String version) {
    UUID orgId = caller.orgId();
    ChartRow chart = chart(orgId, name);
    ChartVersionRow v = version(orgId, name, version);
    List<String> using = charts.workloadsUsing(orgId, chart.id(), version);
    if (!using.isEmpty()) {
      throw ApiException.conflict(
          "chart " + name + " " + version + " is used by workloads " + using);
    }
    charts.deleteVersion(orgId, chart.id(), version);
    if (charts.versions(orgId, chart.id()).isEmpty()) {
      charts.delete(orgId, chart.id());
    }
    audit.record(
        orgId,
        caller.actor(),
        "chart.version_deleted",
        "chart",
        chart.id().toString(),
        Map.of("chart", name, "version", version, "digest", v.digest()));
  }

  private ChartRow chart(UUID orgId, String name) {
    return charts.findByName(orgId, name).orElseThrow(() -> ApiException.notFound("chart " + name));
  }

  /** Newest first by SemVer precedence; upload time breaks ties (build metadata). */
  static List<ChartVersionRow> newestFirst(List<ChartVersionRow> versions) {
    return versions.stream()
        .sorted(
            Comparator.<ChartVersionRow, String>comparing(
                    ChartVersionRow::version, ChartService::compareSemver)
                .thenComparing(ChartVersionRow::createdAt)
                .reversed())
        .toList();
  }

  /** SemVer 2 precedence (build metadata ignored); non-SemVer strings sort by text. */
  static int compareSemver(String a, String b) {
    String[] pa = core(a);
    String[] pb = core(b);
    for (int i = 0; i < 3; i++) {
      int c = compareIdentifier(pa[i], pb[i]);
      if (c != 0) {
        return c;
      }
    }
    String preA = pre(a);
    String preB = pre(b);
    if (preA.isEmpty() || preB.isEmpty()) {
      return Boolean.compare(preA.isEmpty(), preB.isEmpty());
    }
    String[] ia = preA.split("\\.");
    String[] ib = preB.split("\\.");
    for (int i = 0; i < Math.min(ia.length, ib.length); i++) {
      int c = compareIdentifier(ia[i], ib[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(ia.length, ib.length);
  }

  private static String[] core(String v) {
    String s = stripBuild(v);
    int dash = s.indexOf('-');
    String[] parts = (dash < 0 ? s : s.substring(0, dash)).split("\\.", 3);
    String[] out = {"0", "0", "0"};
    System.arraycopy(parts, 0, out, 0, Math.min(parts.length, 3));
    return out;
  }

  private static String pre(String v) {
    String s = stripBuild(v);
    int dash = s.indexOf('-');
    return dash < 0 ? "" : s.substring(dash + 1);
  }

  private static String stripBuild(String v) {
    int plus = v.indexOf('+');
    return plus < 0 ? v : v.substring(0, plus);
  }

  private static int compareIdentifier(String a, String b) {
    boolean na = a.chars().allMatch(Character::isDigit) && !a.isEmpty();
    boolean nb = b.chars().allMatch(Character::isDigit) && !b.isEmpty();
    if (na && nb) {
      return new BigInteger(a).compareTo(new BigInteger(b));
    }
    if (na != nb) {
      return na ? -1 : 1;
    }
    return a.compareTo(b);
  }
}
