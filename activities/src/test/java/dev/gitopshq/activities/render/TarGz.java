package dev.gitopshq.activities.render;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Builds .tgz archives for tests, including hostile ones (links, devices, escaping paths) that
 * {@code helm package} would never produce.
 */
final class TarGz {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final GZIPOutputStream gzip;
  private final TarArchiveOutputStream tar;

  private TarGz() {
    try {
      gzip = new GZIPOutputStream(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    tar = new TarArchiveOutputStream(gzip);
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
  }

  static TarGz create() {
    return new TarGz();
  }

  /** The test chart in src/test/resources/charts/webapp, under the top-level directory webapp/. */
  static Path webappDir() {
    try {
      return Path.of(TarGz.class.getResource("/charts/webapp/Chart.yaml").toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The webapp chart packed like {@code helm package} does (files only, under webapp/). */
  static TarGz webapp() {
    TarGz t = create();
    Path dir = webappDir();
    try (var walk = Files.walk(dir)) {
      List<Path> files = walk.filter(Files::isRegularFile).sorted().toList();
      for (Path f : files) {
        t.file("webapp/" + dir.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return t;
  }

  /** The webapp chart with one file replaced (or added). */
  static byte[] webappWith(String path, String content) {
    TarGz t = create();
    Path dir = webappDir();
    try (var walk = Files.walk(dir)) {
      for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
        String name = "webapp/" + dir.relativize(f).toString().replace('\\', '/');
        if (!name.equals(path)) {
          t.file(name, Files.readAllBytes(f));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return t.file(path, content).build();
  }

  TarGz file(String name, String content) {
    return file(name, content.getBytes(StandardCharsets.UTF_8));
  }

  TarGz file(String name, byte[] content) {
    TarArchiveEntry e = new TarArchiveEntry(name, true);
    e.setSize(content.length);
    return put(e, content);
  }

  TarGz dir(String name) {
    return put(new TarArchiveEntry(name.endsWith("/") ? name : name + "/", true), new byte[0]);
  }

  TarGz symlink(String name, String target) {
    TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
    e.setLinkName(target);
    return put(e, new byte[0]);
  }

  TarGz hardlink(String name, String target) {
    TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_LINK, true);
    e.setLinkName(target);
    return put(e, new byte[0]);
  }

  TarGz special(String name, byte type) {
    return put(new TarArchiveEntry(name, type, true), new byte[0]);
  }

  private TarGz put(TarArchiveEntry entry, byte[] content) {
    try {
      tar.putArchiveEntry(entry);
      tar.write(content);
      tar.closeArchiveEntry();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  byte[] build() {
    try {
      tar.finish();
      tar.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** gzip of arbitrary bytes (for "gzip but not tar"). */
  static byte[] gzip(byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
