package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The input fingerprint of a {@link Unit}: SHA-256 over a canonical encoding of everything that
 * determines its rendered files, so that two units with the same fingerprint render the same bytes
 * and delivery generation may reuse the tree of one for the other.
 *
 * <p>What it covers: the renderer's output version ({@link Renderer#outputVersion()}: a renderer
 * change re-renders every unit) and the whole unit — its path, kind, environment, cluster, tenant,
 * service (the Helm release name), namespace, chart name, version and digest (the archive is read
 * by its SHA-256, so the digest stands for the chart's bytes), the merged and substituted values,
 * the bundle's or base's files, the overlays and the base path, the merged variables, the project's
 * fence and the kind scopes the workload or binding declares. The cluster's value overrides reach
 * the render only through the merged values; the renderer reads nothing else about the target
 * cluster (Helm runs client-only, {@code template} without a Kubernetes client), so the unit is the
 * whole input.
 *
 * <p>Canonical: the unit is written as JSON with object keys sorted at every depth (record
 * components alphabetically, map entries by key), so the order in which maps were built does not
 * change the fingerprint. That matches what is rendered: the render reads the unit back from its
 * {@code jsonb} column, which does not keep key order either. List order (overlays, value lists) is
 * kept: it changes the output.
 */
public final class UnitFingerprint {
  /** Changes when the encoding below changes, so old fingerprints never match new ones. */
  static final String SCHEME = "gitopshq-unit-fingerprint/1";

  private static final ObjectMapper CANONICAL =
      JsonMapper.builder()
          .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
          .build();

  private UnitFingerprint() {}

  /**
   * The fingerprint of {@code unit} as rendered by a renderer of {@code outputVersion}: 64
   * lowercase hex characters.
   */
  public static String of(Unit unit, String outputVersion) {
    MessageDigest sha = sha256();
    sha.update((SCHEME + "\n" + outputVersion + "\n").getBytes(StandardCharsets.UTF_8));
    try (OutputStream out = new DigestSink(sha)) {
      CANONICAL.writeValue(out, unit);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode unit " + unit.path(), e);
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  /** Feeds what Jackson writes straight into the digest, without a buffer of the whole unit. */
  private static final class DigestSink extends OutputStream {
    private final MessageDigest sha;

    DigestSink(MessageDigest sha) {
      this.sha = sha;
    }

    @Override
    public void write(int b) {
      sha.update((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      sha.update(b, off, len);
    }
  }
}
