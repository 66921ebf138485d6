"""pylance objects as the Lance ``Transaction`` protobufs CommitTable takes.

Fragments are converted field by field from pylance's ``FragmentMetadata``; the schema is pylance's own encoding of
the Arrow schema (``LanceSchema.from_pyarrow``), so field ids, logical types and metadata are exactly what pylance
records. Checked against the ``_transactions/*.txn`` files and manifests pylance itself writes (tests/test_transactions.py).
"""

from __future__ import annotations

import json
import uuid as uuidlib
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import lance
import pyarrow as pa
from lance.fragment import FragmentMetadata
from lance.schema import LanceSchema
from pyroaring import BitMap, BitMap64

from . import _protos

__all__ = [
    "append",
    "overwrite",
    "delete",
    "rewrite",
    "create_index",
    "index",
    "compute_delete",
    "fragment",
    "schema_fields",
    "schema_metadata",
]

SchemaLike = Union[pa.Schema, LanceSchema]


def _new_uuid() -> str:
    return str(uuidlib.uuid4())


def _base(read_version: int) -> Any:
    if read_version < 0:
        raise ValueError(f"read_version must be >= 0, got {read_version}")
    return _protos.Transaction(read_version=read_version, uuid=_new_uuid())


def append(read_version: int, fragments: Sequence[FragmentMetadata]) -> Any:
    """An Append of newly written fragments on ``read_version``."""
    txn = _base(read_version)
    txn.append.SetInParent()
    txn.append.fragments.extend(fragment(f) for f in fragments)
    return txn


def overwrite(read_version: int, fragments: Sequence[FragmentMetadata], schema: SchemaLike) -> Any:
    """An Overwrite (read version 0: the table's creation) with ``schema`` and the fragments written for it.

    Besides what pylance writes to its ``.txn`` file, the Arrow schema's own metadata goes in ``schema_metadata``:
    pylance keeps it in the manifest but not in the transaction file, and the coordinator builds the manifest from
    the transaction.
    """
    txn = _base(read_version)
    txn.overwrite.SetInParent()
    txn.overwrite.fragments.extend(fragment(f) for f in fragments)
    txn.overwrite.schema.extend(schema_fields(schema))
    for key, value in schema_metadata(schema).items():
        txn.overwrite.schema_metadata[key] = value
    return txn


def delete(
    read_version: int, updated: Sequence[FragmentMetadata], deleted_fragment_ids: Iterable[int], predicate: str
) -> Any:
    """A Delete: fragments with new deletion files, fragments removed whole, and the predicate (informational)."""
    txn = _base(read_version)
    txn.delete.SetInParent()
    txn.delete.updated_fragments.extend(fragment(f) for f in updated)
    txn.delete.deleted_fragment_ids.extend(int(i) for i in deleted_fragment_ids)
    txn.delete.predicate = predicate
    return txn


def rewrite(results: Sequence[Any]) -> Any:
    """A Rewrite with one group per compaction result (``lance.optimize.Compaction.plan(...).tasks[i].execute(ds)``):
    the fragments a task read (as committed, with their ids) become the fragments it wrote. All results must come
    from one plan, i.e. share a read version."""
    if not results:
        raise ValueError("a rewrite needs at least one compaction result")
    read_versions = {int(r.read_version) for r in results}
    if len(read_versions) != 1:
        raise ValueError(f"compaction results of different versions {sorted(read_versions)} cannot commit together")
    txn = _base(read_versions.pop())
    txn.rewrite.SetInParent()
    for result in results:
        group = txn.rewrite.groups.add()
        group.old_fragments.extend(fragment(f) for f in result.original_fragments)
        group.new_fragments.extend(fragment(f) for f in result.new_fragments)
    return txn


def create_index(added: Sequence[Any], removed: Sequence[Any] = ()) -> Any:
    """A CreateIndex of segments pylance built without committing (``LanceDataset.create_index_uncommitted``),
    replacing ``removed`` (matched by uuid), on the newest version the segments were built on."""
    if not added:
        raise ValueError("a CreateIndex needs at least one new index segment")
    txn = _base(max(int(i.dataset_version) for i in added))
    txn.create_index.SetInParent()
    txn.create_index.new_indices.extend(index(i) for i in added)
    txn.create_index.removed_indices.extend(index(i) for i in removed)
    return txn


def index(segment: Any) -> Any:
    """A ``lance.Index`` (an index segment's metadata) as the ``IndexMetadata`` protobuf a CreateIndex carries."""
    out = _protos.IndexMetadata(
        name=segment.name,
        fields=[int(f) for f in segment.fields],
        dataset_version=int(segment.dataset_version),
        fragment_bitmap=BitMap(sorted(int(i) for i in segment.fragment_ids)).serialize(),
    )
    out.uuid.uuid = uuidlib.UUID(str(segment.uuid)).bytes
    if segment.index_version is not None:
        out.index_version = int(segment.index_version)
    if segment.index_details is not None:
        type_url, value = segment.index_details
        out.index_details.type_url = type_url
        out.index_details.value = bytes(value)
    if segment.created_at is not None:
        out.created_at = int(segment.created_at.timestamp() * 1000)
    if segment.base_id is not None:
        out.base_id = int(segment.base_id)
    for f in segment.files or []:
        out.files.add(path=f.path, size_bytes=int(f.size_bytes))
    return out


def compute_delete(dataset: lance.LanceDataset, predicate: str) -> Tuple[Any, bytes]:
    """The Delete of every row of ``dataset``'s version matching the SQL ``predicate``, computed with pylance
    without committing, and its ``affected_rows`` (the touched row addresses as a portable 64-bit Roaring map).

    The rows are found with one filtered scan; each touched fragment gets a new deletion file from pylance
    (``LanceFragment.delete_rows``, which extends the fragment's existing deletion vector).
    """
    if not predicate or not predicate.strip():
        raise ValueError('a delete needs a predicate ("true" deletes every row)')
    any_column = dataset.schema.names[0]
    scanned = dataset.to_table(columns=[any_column], filter=predicate, with_row_address=True)
    addresses = [int(a) for a in scanned.column("_rowaddr").to_pylist()]
    by_fragment: Dict[int, List[int]] = {}
    for address in addresses:
        by_fragment.setdefault(address >> 32, []).append(address & 0xFFFFFFFF)
    updated: List[FragmentMetadata] = []
    deleted: List[int] = []
    for fragment_id in sorted(by_fragment):
        lance_fragment = dataset.get_fragment(fragment_id)
        if lance_fragment is None:
            raise ValueError(f"version {dataset.version} of {dataset.uri} has no fragment {fragment_id}")
        after = lance_fragment.delete_rows(by_fragment[fragment_id])
        if after is None:
            deleted.append(fragment_id)
        else:
            updated.append(after)
    return delete(dataset.version, updated, deleted, predicate), BitMap64(addresses).serialize()


def schema_fields(schema: SchemaLike) -> List[Any]:
    """The schema's fields as pylance encodes them (``lance.file.Field`` protobufs, ids assigned as pylance does).

    pylance pickles a ``LanceSchema`` as its metadata and one serialized ``Field`` protobuf per field; those bytes are
    taken as they are, so anything pylance 14 records that this client's protobufs do not name survives unchanged.
    """
    lance_schema = schema if isinstance(schema, LanceSchema) else LanceSchema.from_pyarrow(schema)
    return [_protos.Field.FromString(raw) for raw in _pickled(lance_schema)[1:]]


def schema_metadata(schema: SchemaLike) -> Dict[str, bytes]:
    """The Arrow schema's own key/value metadata, as the manifest's ``schema_metadata`` holds it."""
    if isinstance(schema, LanceSchema):
        return {key: bytes(value) for key, value in json.loads(_pickled(schema)[0]).items()}
    return {key.decode("utf-8"): bytes(value) for key, value in (schema.metadata or {}).items()}


def _pickled(schema: LanceSchema) -> Tuple[Any, ...]:
    """What ``LanceSchema`` pickles itself as: ``(metadata_json, field_protobuf, ...)``."""
    reduced: Any = schema.__reduce__()
    return tuple(reduced[1])


def fragment(metadata: FragmentMetadata) -> Any:
    """One pylance fragment as the ``DataFragment`` protobuf a transaction carries."""
    if metadata.overlays:
        raise ValueError(
            f"fragment {metadata.id} carries data overlay files; DataOverlay is unstable in Lance and the "
            "coordinator refuses it"
        )
    out = _protos.DataFragment(id=int(metadata.id), physical_rows=int(metadata.physical_rows or 0))
    for data_file in metadata.files:
        f = out.files.add(
            path=data_file.path,
            fields=list(data_file.fields),
            column_indices=list(data_file.column_indices or []),
            file_major_version=int(data_file.file_major_version),
            file_minor_version=int(data_file.file_minor_version),
            file_size_bytes=int(data_file.file_size_bytes or 0),
        )
        if data_file.base_id is not None:
            f.base_id = int(data_file.base_id)
    deletion = metadata.deletion_file
    if deletion is not None:
        file_type = _protos.DeletionFile.BITMAP if deletion.file_type == "bitmap" else _protos.DeletionFile.ARROW_ARRAY
        out.deletion_file.file_type = file_type
        out.deletion_file.read_version = int(deletion.read_version)
        out.deletion_file.id = int(deletion.id)
        out.deletion_file.num_deleted_rows = int(deletion.num_deleted_rows or 0)
        if deletion.base_id is not None:
            out.deletion_file.base_id = int(deletion.base_id)
    if metadata.row_id_meta is not None:
        _sequence(out, "row_ids", metadata.row_id_meta.json())
    if metadata.last_updated_at_version_meta is not None:
        _sequence(out, "last_updated_at_versions", metadata.last_updated_at_version_meta.json())
    if metadata.created_at_version_meta is not None:
        _sequence(out, "created_at_versions", metadata.created_at_version_meta.json())
    return out


def _sequence(out: Any, name: str, serde_json: str) -> None:
    """pylance hands row-id and version sequences over as the serde JSON of the Rust enum: ``{"Inline": [bytes]}``
    or ``{"External": {"path", "offset", "size"}}`` (variant names in either case)."""
    parsed = json.loads(serde_json)
    if not isinstance(parsed, dict) or len(parsed) != 1:
        raise ValueError(f"unreadable Lance sequence metadata: {serde_json}")
    (variant, value), = parsed.items()
    kind = variant.lower()
    if kind == "inline":
        setattr(out, f"inline_{name}", bytes(value))
    elif kind == "external":
        ext = getattr(out, f"external_{name}")
        ext.path = value["path"]
        ext.offset = int(value["offset"])
        ext.size = int(value["size"])
    else:
        raise ValueError(f"unknown Lance sequence metadata variant: {serde_json}")
