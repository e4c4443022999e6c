package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jgit.internal.storage.dfs.DfsOutputStream;

/**
 * Writes one pack file as rows of {@link PackFileKey#CHUNK} bytes: a full chunk is stored as soon
 * as it is full, so a pack of any size needs one chunk of memory. The file's size row is written on
 * close; until its pack is committed nobody lists it.
 */
final class ChunkOutputStream extends DfsOutputStream {
  private final Sql sql;
  private final PackFileKey key;
  private final byte[] buf = new byte[PackFileKey.CHUNK];
  private int fill;
  private int chunk;
  private long stored;
  private boolean closed;

  ChunkOutputStream(Sql sql, PackFileKey key) {
    this.sql = sql;
    this.key = key;
  }

  @Override
  public int blockSize() {
    return PackFileKey.CHUNK;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException(key.packName() + "." + key.ext() + " is closed");
    }
    while (len > 0) {
      int n = Math.min(len, buf.length - fill);
      System.arraycopy(b, off, buf, fill, n);
      fill += n;
      off += n;
      len -= n;
      if (fill == buf.length) {
        storeChunk();
      }
    }
  }

  private void storeChunk() throws IOException {
    byte[] data = fill == buf.length ? buf : Arrays.copyOf(buf, fill);
    sql.update(
        "insert into git_pack_chunks (org_id, project_id, pack_name, ext, chunk, data)"
            + " values (?, ?, ?, ?, ?, ?)",
        key.orgId(),
        key.projectId(),
        key.packName(),
        key.ext(),
        chunk,
        data);
    chunk++;
    stored += fill;
    fill = 0;
  }

  /** Reads back what was written so far (JGit reads objects it has just written). */
  @Override
  public int read(long position, ByteBuffer dst) throws IOException {
    if (position >= stored + fill) {
      return -1;
    }
    if (position >= stored) {
      int from = (int) (position - stored);
      int n = Math.min(dst.remaining(), fill - from);
      dst.put(buf, from, n);
      return n;
    }
    int index = (int) (position / PackFileKey.CHUNK);
    byte[] data = ChunkChannel.chunks(sql, key, index, 1).get(index);
    if (data == null) {
      throw new IOException("chunk " + index + " of " + key.packName() + " is missing");
    }
    int from = (int) (position % PackFileKey.CHUNK);
    int n = Math.min(dst.remaining(), data.length - from);
    dst.put(data, from, n);
    return n;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    if (fill > 0) {
      storeChunk();
    }
    closed = true;
    sql.update(
        "insert into git_pack_files (org_id, project_id, pack_name, ext, size)"
            + " values (?, ?, ?, ?, ?)",
        key.orgId(),
        key.projectId(),
        key.packName(),
        key.ext(),
        stored);
  }
}
