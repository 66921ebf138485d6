package dev.lancecommit.rules;

import dev.lancecommit.format.pb.Transaction;

/** The operations a Lance transaction can carry, with the names Lance itself uses in messages. */
public enum OperationKind {
  APPEND("Append"),
  DELETE("Delete"),
  OVERWRITE("Overwrite"),
  CREATE_INDEX("CreateIndex"),
  REWRITE("Rewrite"),
  MERGE("Merge"),
  RESTORE("Restore"),
  RESERVE_FRAGMENTS("ReserveFragments"),
  UPDATE("Update"),
  PROJECT("Project"),
  UPDATE_CONFIG("UpdateConfig"),
  DATA_REPLACEMENT("DataReplacement"),
  UPDATE_MEM_WAL_STATE("UpdateMemWalState"),
  CLONE("Clone"),
  UPDATE_BASES("UpdateBases"),
  DATA_OVERLAY("DataOverlay"),
  USER_OPERATION("UserOperation");

  private final String lanceName;

  OperationKind(String lanceName) {
    this.lanceName = lanceName;
  }

  /** The operation's name as Lance spells it, e.g. "CreateIndex". */
  public String lanceName() {
    return lanceName;
  }

  /** The operation of a decoded transaction; a transaction without one is invalid. */
  public static OperationKind of(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case APPEND -> APPEND;
      case DELETE -> DELETE;
      case OVERWRITE -> OVERWRITE;
      case CREATE_INDEX -> CREATE_INDEX;
      case REWRITE -> REWRITE;
      case MERGE -> MERGE;
      case RESTORE -> RESTORE;
      case RESERVE_FRAGMENTS -> RESERVE_FRAGMENTS;
      case UPDATE -> UPDATE;
      case PROJECT -> PROJECT;
      case UPDATE_CONFIG -> UPDATE_CONFIG;
      case DATA_REPLACEMENT -> DATA_REPLACEMENT;
      case UPDATE_MEM_WAL_STATE -> UPDATE_MEM_WAL_STATE;
      case CLONE -> CLONE;
      case UPDATE_BASES -> UPDATE_BASES;
      case DATA_OVERLAY -> DATA_OVERLAY;
      case USER_OPERATION -> USER_OPERATION;
      case OPERATION_NOT_SET -> throw new InvalidTransactionException(
          "Transaction " + txn.getUuid() + " carries no operation (or one this coordinator does not know)");
    };
  }
}
