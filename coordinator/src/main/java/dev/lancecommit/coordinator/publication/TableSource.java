package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.table.TableRef;
import java.util.List;

/** The tables whose versions the reconciler keeps published. Blocking: called on the reconciler's thread. */
@FunctionalInterface
public interface TableSource {
  List<TableRef> tables();
}
