package dev.gitopshq.agent.identity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps the identity in a JSON file readable by its owner only (mode 600).
 *
 * <p>A save writes a temporary file in the same directory, flushes it to disk and renames it over
 * the old file in one atomic step, so a crash leaves either the old identity or the new one, never
 * a torn file. The temporary file is created with mode 600 from the start, so the token is never
 * readable by others, not even for a moment.
 */
public final class FileIdentityStore implements IdentityStore {

  private static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      PosixFilePermissions.fromString("rwx------");

  private final Path file;

  /** Creates a store for the given identity file; nothing is touched until it is used. */
  public FileIdentityStore(Path file) {
    this.file = file.toAbsolutePath();
  }

  @Override
  public Optional<AgentIdentity> load() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new IdentityStoreException("cannot read the agent identity file " + file + ": " + e, e);
    }
    return Optional.of(IdentityJson.decode(bytes, location()));
  }

  @Override
  public void save(AgentIdentity identity) {
    byte[] bytes = IdentityJson.encode(identity);
    Path directory = file.getParent();
    Path temp = null;
    try {
      createDirectories(directory);
      temp = createPrivateTempFile(directory);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        // Same-directory renames are atomic on every local file system; this only happens on
        // exotic mounts, where a plain replace is the best that can be done.
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      temp = null;
      syncDirectory(directory);
    } catch (IOException e) {
      throw new IdentityStoreException(
          "cannot write the agent identity file " + file + ": " + e, e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          // The temporary file is private to the owner; leaving it behind is harmless.
        }
      }
    }
  }

  @Override
  public void clear() {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new IdentityStoreException(
          "cannot delete the agent identity file " + file + ": " + e, e);
    }
  }

  @Override
  public String location() {
    return "file " + file;
  }

  /** The identity file. */
  public Path file() {
    return file;
  }

  private static void createDirectories(Path directory) throws IOException {
    if (Files.isDirectory(directory)) {
      return;
    }
    try {
      Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    } catch (UnsupportedOperationException e) {
      Files.createDirectories(directory);
    } catch (FileAlreadyExistsException e) {
      // Created concurrently by someone else; the move below tells whether it is usable.
    }
  }

  private static Path createPrivateTempFile(Path directory) throws IOException {
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE);
    try {
      return Files.createTempFile(directory, ".agent-identity-", ".tmp", ownerOnly);
    } catch (UnsupportedOperationException e) {
      return Files.createTempFile(directory, ".agent-identity-", ".tmp");
    }
  }

  /** Flushes the rename itself to disk; not every platform can open a directory, which is fine. */
  private static void syncDirectory(Path directory) {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // The file content is already durable; only the rename's durability is best effort.
    }
  }
}
