package dev.gitopshq.evidence;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The audit log's hash chain: the one implementation the hub writes with and every verifier checks
 * with.
 *
 * <p>An entry's hash is SHA-256 over, in order, the previous entry's hash, the organization id, the
 * time ({@link java.time.Instant#toString()}, microsecond precision), the actor's type, id and
 * name, the action, the target's type and id, and the details (canonical JSON text); each field as
 * its UTF-8 length in decimal ASCII, a colon, then its UTF-8 bytes, so no two different entries
 * encode alike. An organization's first entry links to {@link #GENESIS}.
 */
public final class AuditChain {
  /** The link of an organization's first entry: 64 zeros. */
  public static final String GENESIS = "0".repeat(64);

  private AuditChain() {}

  /** The hash of one entry, from its fields and the previous entry's hash. */
  public static String hash(
      String prevHash,
      String orgId,
      String at,
      String actorType,
      String actorId,
      String actorName,
      String action,
      String targetType,
      String targetId,
      String details) {
    MessageDigest sha = Sha256.digest();
    for (String field :
        new String[] {
          prevHash, orgId, at, actorType, actorId, actorName, action, targetType, targetId, details
        }) {
      byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
      sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
      sha.update((byte) ':');
      sha.update(bytes);
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  /** The hash an entry should have. */
  public static String hash(Entry e) {
    return hash(
        e.prevHash(),
        e.orgId(),
        e.at(),
        e.actorType(),
        e.actorId(),
        e.actorName(),
        e.action(),
        e.targetType(),
        e.targetId(),
        e.details());
  }

  /**
   * One audit entry with every field its hash covers, as the audit API and evidence documents show
   * it.
   *
   * @param at the time exactly as hashed ({@code Instant.toString()})
   * @param details the details exactly as hashed (canonical JSON text)
   */
  public record Entry(
      long seq,
      String orgId,
      String at,
      String actorType,
      String actorId,
      String actorName,
      String action,
      String targetType,
      String targetId,
      String details,
      String prevHash,
      String hash) {}

  /** One link of the chain: an entry's sequence number, the hash it links to and its own hash. */
  public record Link(long seq, String prevHash, String hash) {}

  /**
   * Checks a stretch of an organization's chain: the links in order of {@code seq}, each linking to
   * the one before, and every full entry recomputing to its hash and appearing among the links. The
   * links let a verifier see that entries chain without seeing the entries between them.
   *
   * @return null when it holds, else the first problem in a sentence
   */
  public static String check(List<Link> links, List<Entry> entries) {
    if (links.isEmpty()) {
      return entries.isEmpty() ? null : "the chain has no links for its entries";
    }
    Map<Long, Link> bySeq = new HashMap<>();
    Link before = null;
    for (Link l : links) {
      if (before != null) {
        if (l.seq() <= before.seq()) {
          return "link " + l.seq() + " is out of order after " + before.seq();
        }
        if (!l.prevHash().equals(before.hash())) {
          return "entry " + l.seq() + " does not link to entry " + before.seq() + " before it";
        }
      }
      bySeq.put(l.seq(), l);
      before = l;
    }
    for (Entry e : entries) {
      Link l = bySeq.get(e.seq());
      if (l == null) {
        return "entry " + e.seq() + " is not in the chain";
      }
      if (!l.hash().equals(e.hash()) || !l.prevHash().equals(e.prevHash())) {
        return "entry " + e.seq() + " differs from its link in the chain";
      }
      if (!hash(e).equals(e.hash())) {
        return "entry " + e.seq() + " (" + e.action() + ") does not match its hash";
      }
    }
    return null;
  }
}
