package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jgit.internal.storage.dfs.ReadableChannel;

/**
 * Reads one pack file from its chunk rows. JGit reads {@link PackFileKey#CHUNK}-sized blocks (one
 * row each) through its block cache; when it announces a longer sequential read (an index), up to
 * {@link #MAX_AHEAD} chunks come in one query. Holds at most that many chunks.
 */
final class ChunkChannel implements ReadableChannel {
  /** The most chunks fetched (and held) at once: 1 MiB. */
  static final int MAX_AHEAD = 16;

  private final Sql sql;
  private final PackFileKey key;
  private final long size;
  private long position;
  private int ahead = 1;
  private Map<Integer, byte[]> held = Map.of();
  private boolean open = true;

  ChunkChannel(Sql sql, PackFileKey key, long size) {
    this.sql = sql;
    this.key = key;
    this.size = size;
  }

  /** Chunks {@code from} to {@code from + count - 1} of a file, by number. */
  static Map<Integer, byte[]> chunks(Sql sql, PackFileKey key, int from, int count)
      throws IOException {
    return sql.query(
        "select chunk, data from git_pack_chunks"
            + " where org_id = ? and project_id = ? and pack_name = ? and ext = ?"
            + " and chunk >= ? and chunk < ?",
        rs -> {
          Map<Integer, byte[]> out = new HashMap<>();
          while (rs.next()) {
            out.put(rs.getInt(1), rs.getBytes(2));
          }
          return out;
        },
        key.orgId(),
        key.projectId(),
        key.packName(),
        key.ext(),
        from,
        from + count);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (!open) {
      throw new ClosedChannelException();
    }
    if (position >= size) {
      return -1;
    }
    int total = 0;
    while (dst.hasRemaining() && position < size) {
      int index = (int) (position / PackFileKey.CHUNK);
      byte[] data = held.get(index);
      if (data == null) {
        held = chunks(sql, key, index, ahead);
        data = held.get(index);
        if (data == null) {
          throw new IOException(
              "chunk " + index + " of " + key.packName() + "." + key.ext() + " is missing");
        }
      }
      int from = (int) (position % PackFileKey.CHUNK);
      int n = Math.min(dst.remaining(), data.length - from);
      if (n <= 0) {
        throw new IOException(key.packName() + "." + key.ext() + " is shorter than its size");
      }
      dst.put(data, from, n);
      position += n;
      total += n;
    }
    return total;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public void position(long newPosition) {
    position = newPosition;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public int blockSize() {
    return PackFileKey.CHUNK;
  }

  @Override
  public void setReadAheadBytes(int bytes) {
    ahead = Math.clamp((bytes + PackFileKey.CHUNK - 1) / PackFileKey.CHUNK, 1, MAX_AHEAD);
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
    held = Map.of();
  }
}
