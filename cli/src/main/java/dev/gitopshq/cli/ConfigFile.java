package dev.gitopshq.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * {@code ${XDG_CONFIG_HOME:-~/.config}/gitopshq/config.yaml}: the server and token {@code login}
 * saved. The file is written with mode 0600 (its directory 0700) because it holds a bearer token.
 */
public final class ConfigFile {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
          .setSerializationInclusion(JsonInclude.Include.NON_NULL)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** What the file holds. */
  public record Settings(String server, String token, String caFile) {
    static final Settings EMPTY = new Settings(null, null, null);
  }

  private ConfigFile() {}

  /** The file's path for this environment. */
  public static Path path(Map<String, String> env) {
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base;
    if (xdg != null && !xdg.isBlank()) {
      base = Path.of(xdg);
    } else {
      String home = env.getOrDefault("HOME", System.getProperty("user.home"));
      base = Path.of(home, ".config");
    }
    return base.resolve("gitopshq").resolve("config.yaml");
  }

  public static Settings read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Settings.EMPTY;
    }
    try {
      if (Files.size(file) > 64 * 1024) {
        throw new CliException(ExitCode.ERROR, file + " is larger than 64 KiB");
      }
      Settings s = YAML.readValue(file.toFile(), Settings.class);
      return s == null ? Settings.EMPTY : s;
    } catch (IOException e) {
      throw new CliException(ExitCode.ERROR, "cannot read " + file + ": " + e.getMessage());
    }
  }

  public static void write(Path file, Settings settings) {
    try {
      Path dir = file.getParent();
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        setMode(dir, "rwx------");
      }
      Path tmp = Files.createTempFile(dir, ".config", ".yaml");
      setMode(tmp, "rw-------");
      YAML.writeValue(tmp.toFile(), settings);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      setMode(file, "rw-------");
    } catch (IOException e) {
      throw new CliException(ExitCode.ERROR, "cannot write " + file + ": " + e.getMessage());
    }
  }

  private static void setMode(Path p, String mode) throws IOException {
    try {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    } catch (UnsupportedOperationException e) {
      // Not a POSIX file system (Windows): the user's profile directory protects it.
    }
  }
}
