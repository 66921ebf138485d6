package dev.lancecommit.rules.rebase;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import org.roaringbitmap.RoaringBitmap;

/**
 * Names the deletion files a rebase writes: the random-looking, non-zero u64 in
 * {@code _deletions/{fragment}-{read_version}-{id}.bin}.
 */
@FunctionalInterface
public interface DeletionFileIds {

  /** The id of the new deletion file of {@code fragmentId} holding {@code rows}; never 0. */
  long idFor(long fragmentId, RoaringBitmap rows);

  /**
   * Ids derived from {@code salt}, the fragment and the deleted rows (SHA-256): the same rebase twice writes the same
   * bytes under the same name, and a name never holds two contents. The commit path salts with the transaction uuid
   * and the version it is rebased onto, so a resubmitted transaction rebuilt on the same version re-creates files
   * identical to the ones an earlier attempt left, instead of new ones or different ones under a shared name.
   */
  static DeletionFileIds contentAddressed(String salt) {
    Objects.requireNonNull(salt, "salt");
    return (fragmentId, rows) -> {
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(salt.getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
          out.writeLong(fragmentId);
          RoaringBitmap copy = rows.clone();
          copy.runOptimize();
          copy.serialize(out);
        }
        byte[] digest = sha.digest(bytes.toByteArray());
        for (int offset = 0; offset + 8 <= digest.length; offset += 8) {
          long id = 0;
          for (int i = 0; i < 8; i++) {
            id = (id << 8) | (digest[offset + i] & 0xffL);
          }
          if (id != 0) {
            return id;
          }
        }
        return 1; // four zero words out of SHA-256: not in this universe
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
  }
}
