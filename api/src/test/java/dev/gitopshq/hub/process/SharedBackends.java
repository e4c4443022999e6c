package dev.gitopshq.hub.process;

import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.TemporalDevServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What hub replicas share: the test database (emptied first), the real Temporal dev server, the
 * real OPA (locked down with its token) and one data directory, hence the same repositories.
 */
public final class SharedBackends implements AutoCloseable {
  private final TemporalDevServer temporal;
  private final OpaTestServer opa;
  private final Path dataDir;

  private SharedBackends(TemporalDevServer temporal, OpaTestServer opa, Path dataDir) {
    this.temporal = temporal;
    this.opa = opa;
    this.dataDir = dataDir;
  }

  public static SharedBackends start() {
    HubTestSupport.wipeDatabaseOnce();
    TemporalDevServer temporal = TemporalDevServer.start();
    try {
      return new SharedBackends(
          temporal, OpaTestServer.startNew(), Files.createTempDirectory("gitopshq-shared-data"));
    } catch (IOException | RuntimeException e) {
      temporal.close();
      throw new IllegalStateException("cannot start the shared backends", e);
    }
  }

  /** The Temporal frontend's host:port. */
  String temporalAddress() {
    return temporal.address();
  }

  /** The OPA every replica talks to. */
  OpaTestServer opa() {
    return opa;
  }

  /** The environment every replica gets, as docs/install.md lists it. */
  Map<String, String> hubEnv() {
    return Map.of(
        "GITOPSHQ_DB_URL", HubTestSupport.DB_URL,
        "GITOPSHQ_DB_USER", HubTestSupport.DB_USER,
        "GITOPSHQ_DB_PASSWORD", HubTestSupport.DB_PASSWORD,
        "TEMPORAL_ADDRESS", temporal.address(),
        "OPA_URL", opa.url().toString(),
        "GITOPSHQ_OPA_TOKEN", opa.token(),
        "GITOPSHQ_DATA_DIR", dataDir.toString(),
        "GITOPSHQ_BOOTSTRAP_TOKEN", HubTestSupport.OWNER_TOKEN,
        "GITOPSHQ_ENCRYPTION_KEY", HubTestSupport.ENCRYPTION_KEY);
  }

  @Override
  public void close() {
    try {
      opa.close();
    } finally {
      temporal.close();
    }
  }
}
