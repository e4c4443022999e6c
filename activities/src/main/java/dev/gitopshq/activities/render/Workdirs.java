package dev.gitopshq.activities.render;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Deleting the scratch directories renders and checks work in. */
final class Workdirs {
  private Workdirs() {}

  /** Deletes a directory tree without following links; a missing or null directory is fine. */
  static void delete(Path dir) {
    if (dir == null || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.delete(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
              if (e != null) {
                throw e;
              }
              Files.delete(d);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the scratch directory " + dir, e);
    }
  }

  /**
   * Like {@link #delete} but never throws: used in {@code finally} blocks, where the original
   * failure matters more than a leftover scratch directory.
   */
  static void deleteQuietly(Path dir) {
    try {
      delete(dir);
    } catch (UncheckedIOException e) {
      // Leftover scratch files hold nothing secret; the caller's own outcome wins.
    }
  }
}
