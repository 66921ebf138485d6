package dev.lancecommit.rules;

import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.Objects;

/**
 * UpdateBases: registers new base paths. A new base may not share its name (an absent name counts as a name, as in
 * Lance) or its path with an existing one; id 0 means "next free id" (max + 1, or 1); an explicit id already in
 * use is refused (Lance would silently replace that base and strand the files on it).
 */
final class UpdateBasesOperation {
  private UpdateBasesOperation() {}

  static void apply(ManifestDraft draft, Transaction.UpdateBases update) {
    Manifest.Builder manifest = draft.manifest();
    for (BasePath base : update.getNewBasesList()) {
      String name = base.hasName() ? base.getName() : null;
      for (BasePath existing : manifest.getBasePathsList()) {
        String existingName = existing.hasName() ? existing.getName() : null;
        if (Objects.equals(existingName, name) || existing.getPath().equals(base.getPath())) {
          throw new InvalidTransactionException("Conflict detected: Base path with name '" + name + "' or path '"
              + base.getPath() + "' already exists. Existing: name='" + existingName + "', path='"
              + existing.getPath() + "'");
        }
        if (base.getId() != 0 && existing.getId() == base.getId()) {
          throw new InvalidTransactionException(
              "Base path id " + Integer.toUnsignedString(base.getId()) + " is already in use");
        }
      }
      BasePath toAdd = base;
      if (base.getId() == 0) {
        int next = 1;
        for (BasePath existing : manifest.getBasePathsList()) {
          next = Math.max(next, existing.getId() + 1);
        }
        toAdd = base.toBuilder().setId(next).build();
      }
      manifest.addBasePaths(toAdd);
    }
  }
}
