package dev.gitopshq.hub.evidence;

import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.evidence.EvidenceKeyMapper;
import dev.gitopshq.activities.evidence.EvidenceKeyRow;
import dev.gitopshq.evidence.Ed25519;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.util.List;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The hub's Ed25519 evidence signing key: one per installation, made on first use (under a lock, so
 * replicas agree), its private half stored only sealed with the hub's encryption key ({@link
 * SecretBox}, context {@code evidence-key:<id>}). Rotation is not implemented: the newest key
 * signs, and every key stays listed so older documents still verify.
 */
@Service
public class EvidenceKeys {
  private final EvidenceKeyMapper mapper;
  private final SecretBox box;
  private final TransactionTemplate tx;
  private final Clock clock;
  private volatile Signing current;

  public EvidenceKeys(
      EvidenceKeyMapper mapper,
      SecretBox box,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.mapper = mapper;
    this.box = box;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /** The key that signs, with its id. */
  public record Signing(String id, PrivateKey privateKey, PublicKey publicKey) {}

  public List<EvidenceKeyRow> list() {
    return mapper.list();
  }

  public Signing current() {
    Signing s = current;
    if (s != null) {
      return s;
    }
    EvidenceKeyRow row =
        tx.execute(
            t -> {
              mapper.lock();
              List<EvidenceKeyRow> rows = mapper.list();
              if (!rows.isEmpty()) {
                return rows.getFirst();
              }
              KeyPair pair = Ed25519.generate();
              String id = Ed25519.keyId(pair.getPublic());
              EvidenceKeyRow created =
                  new EvidenceKeyRow(
                      id,
                      Ed25519.ALGORITHM,
                      pair.getPublic().getEncoded(),
                      box.seal(pair.getPrivate().getEncoded(), context(id)),
                      clock.instant());
              mapper.insert(created);
              return created;
            });
    s =
        new Signing(
            row.id(),
            Ed25519.privateKey(box.open(row.privateKeySealed(), context(row.id()))),
            Ed25519.publicKey(row.publicKey()));
    current = s;
    return s;
  }

  private static String context(String id) {
    return "evidence-key:" + id;
  }
}
