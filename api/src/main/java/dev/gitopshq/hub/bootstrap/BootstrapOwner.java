package dev.gitopshq.hub.bootstrap;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.ApiTokenRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.config.HubProperties;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates the organization and its first owner on first start. The owner's API token is
 * GITOPSHQ_BOOTSTRAP_TOKEN when that is set (32 or more characters); otherwise a fresh {@code
 * ghqp_} token is generated, written once to {@code <data dir>/bootstrap-token} with mode 600 and
 * printed once to standard output (never to the log). Later starts find the owner and do nothing.
 */
@Component
public class BootstrapOwner {
  private static final Logger log = LoggerFactory.getLogger(BootstrapOwner.class);
  static final String TOKEN_FILE = "bootstrap-token";

  private final OrgMapper orgs;
  private final MemberMapper members;
  private final ApiTokenMapper tokens;
  private final AuditLog audit;
  private final JdbcTemplate jdbc;
  private final HubProperties props;
  private final Clock clock;
  private final PrintStream console;

  public BootstrapOwner(
      OrgMapper orgs,
      MemberMapper members,
      ApiTokenMapper tokens,
      AuditLog audit,
      JdbcTemplate jdbc,
      HubProperties props,
      Clock clock) {
    this.orgs = orgs;
    this.members = members;
    this.tokens = tokens;
    this.audit = audit;
    this.jdbc = jdbc;
    this.props = props;
    this.clock = clock;
    this.console = System.out;
  }

  /** What the bootstrap did. */
  public record Result(UUID orgId, boolean createdOwner) {}

  /**
   * Ensures the organization and an owner exist. Serialized across replicas by an advisory lock, so
   * two hubs starting on an empty database create one owner.
   */
  @Transactional
  public Result run() {
    HubProperties.Bootstrap b = props.bootstrap();
    String presetToken = b.token() == null || b.token().isBlank() ? null : b.token().trim();
    if (presetToken != null && presetToken.length() < 32) {
      throw new IllegalStateException(
          "GITOPSHQ_BOOTSTRAP_TOKEN must be at least 32 characters long");
    }
    jdbc.queryForObject("select 1 from pg_advisory_xact_lock(7002, 0)", Integer.class);

    Instant now = clock.instant();
    orgs.insertIfAbsent(new OrgRow(UUID.randomUUID(), b.orgSlug(), b.orgName(), props.plan(), now));
    OrgRow org = orgs.findBySlug(b.orgSlug()).orElseThrow();
    // The first organization administers the instance: its owners create the others.
    if (orgs.claimOperator(org.id()) == 1) {
      log.info("organization '{}' is the operator organization", org.slug());
    }
    if (members.count(org.id()) > 0) {
      return new Result(org.id(), false);
    }

    MemberRow owner =
        new MemberRow(
            UUID.randomUUID(),
            org.id(),
            b.email(),
            "Bootstrap owner",
            Role.OWNER.wireName(),
            List.of(),
            now);
    members.insert(owner);
    String token = presetToken != null ? presetToken : Tokens.issue(TokenKind.PERSONAL).value();
    if (tokens.existsHash(Tokens.sha256Hex(token))) {
      throw new IllegalStateException(
          "GITOPSHQ_BOOTSTRAP_TOKEN is already in use by another token");
    }
    tokens.insert(
        ApiTokenRow.issued(
            UUID.randomUUID(),
            org.id(),
            owner.id(),
            null,
            "bootstrap",
            Tokens.sha256Hex(token),
            List.of(),
            null,
            now,
            null));
    audit.record(
        org.id(),
        Actor.system("bootstrap"),
        "member.bootstrapped",
        "member",
        owner.id().toString(),
        Map.of(
            "email",
            owner.email(),
            "role",
            owner.role(),
            "tokenSource",
            presetToken != null ? "GITOPSHQ_BOOTSTRAP_TOKEN" : "generated"));

    if (presetToken == null) {
      // The token goes to the 0600 file only: standard output ends up in log files and log
      // collectors, which must never hold a token.
      Path file = writeTokenFile(token);
      console.println();
      console.println("GitOpsHQ bootstrap owner: " + owner.email());
      console.println("Its API token is in " + file + " (readable by this user only).");
      console.println();
    }
    log.info("created organization '{}' and bootstrap owner {}", org.slug(), owner.email());
    return new Result(org.id(), true);
  }

  private Path writeTokenFile(String token) {
    Path dir = props.dataDir();
    Path file = dir.resolve(TOKEN_FILE);
    try {
      Files.createDirectories(dir);
      Path tmp =
          Files.createTempFile(
              dir,
              TOKEN_FILE,
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, token + "\n", StandardOpenOption.TRUNCATE_EXISTING);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return file.toAbsolutePath();
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the bootstrap token file in " + dir, e);
    }
  }
}
