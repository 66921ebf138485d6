"""What pylance wrote into a local table, read with nothing but the client's protobufs (an oracle for the tests)."""

from __future__ import annotations

import glob
import os
import struct
from typing import Any, List

from lance_commit import _protos


def transactions(table: str) -> List[Any]:
    """Every ``_transactions/*.txn`` of the table, parsed, ordered by read version."""
    out = []
    for path in glob.glob(os.path.join(table, "_transactions", "*.txn")):
        with open(path, "rb") as f:
            out.append(_protos.Transaction.FromString(f.read()))
    return sorted(out, key=lambda t: t.read_version)


def transaction(table: str, read_version: int, operation: str = "") -> Any:
    """The one transaction file with ``read_version`` (and operation, e.g. ``"rewrite"``, when given)."""
    matching = [t for t in transactions(table) if t.read_version == read_version
                and (not operation or t.WhichOneof("operation") == operation)]
    assert len(matching) == 1, f"{len(matching)} transaction files with read version {read_version} in {table}"
    return matching[0]


def manifest(table: str, version: int) -> Any:
    """The manifest protobuf of ``version`` (footer ``[u64 pos][u16][u16]["LANC"]``, then ``[u32 len][Manifest]``)."""
    for path in glob.glob(os.path.join(table, "_versions", "*.manifest")):
        with open(path, "rb") as f:
            data = f.read()
        assert data[-4:] == b"LANC", f"not a Lance manifest: {path}"
        (pos,) = struct.unpack("<Q", data[-16:-8])
        (length,) = struct.unpack("<I", data[pos:pos + 4])
        parsed = _protos.Manifest.FromString(data[pos + 4:pos + 4 + length])
        if parsed.version == version:
            return parsed
    raise AssertionError(f"no manifest of version {version} in {table}")


def with_uuid(ours: Any, theirs: Any) -> Any:
    """``ours`` with ``theirs``' uuid (the only field that must differ between two writers of one transaction)."""
    copy = type(ours)()
    copy.CopyFrom(ours)
    copy.uuid = theirs.uuid
    return copy
