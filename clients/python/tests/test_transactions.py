"""The client's transactions against the files pylance 14.0.2 itself writes: same protobufs, byte for byte."""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest
from lance.fragment import write_fragments
from pyroaring import BitMap64

from lance_commit import transactions
from lance_files import manifest, transaction, with_uuid
from lance_files import transactions as transactions_of


def rows(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "value": pa.array([f"v{i}" for i in ids], pa.string())})


RICH_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False, metadata={"comment": "the key"}),
        pa.field("i8", pa.int8()),
        pa.field("u32", pa.uint32()),
        pa.field("f16", pa.float16()),
        pa.field("f", pa.float32()),
        pa.field("d", pa.float64()),
        pa.field("s", pa.string()),
        pa.field("ls", pa.large_string()),
        pa.field("b", pa.bool_()),
        pa.field("bin", pa.binary()),
        pa.field("lbin", pa.large_binary()),
        pa.field("fsb", pa.binary(16)),
        pa.field("vec", pa.list_(pa.float32(), 8)),
        pa.field("st", pa.struct([("x", pa.int32()), ("y", pa.string())])),
        pa.field("l", pa.list_(pa.int64())),
        pa.field("ll", pa.large_list(pa.struct([("z", pa.uint8())]))),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("ts_local", pa.timestamp("ms")),
        pa.field("day", pa.date32()),
        pa.field("t", pa.time64("ns")),
        pa.field("dur", pa.duration("s")),
        pa.field("dec", pa.decimal128(10, 2)),
        pa.field("dict", pa.dictionary(pa.int32(), pa.string())),
        pa.field("json", pa.string(), metadata={"ARROW:extension:name": "arrow.json"}),
    ],
    metadata={"owner": "sales", "schema.version": "3"},
)


def test_create_and_append_equal_what_pylance_writes(tmp_path):
    uri = str(tmp_path / "t.lance")
    first = write_fragments(rows(0, 10), uri, max_rows_per_file=4)
    assert len(first) == 3
    schema = rows(0, 1).schema
    lance.LanceDataset.commit(uri, lance.LanceOperation.Overwrite(schema, first))
    second = write_fragments(rows(10, 5), uri)
    lance.LanceDataset.commit(uri, lance.LanceOperation.Append(second), read_version=1)

    stock_create = transaction(uri, 0)
    ours = transactions.overwrite(0, first, schema)
    assert with_uuid(ours, stock_create).SerializeToString() == stock_create.SerializeToString()
    stock_append = transaction(uri, 1)
    assert with_uuid(transactions.append(1, second), stock_append).SerializeToString() == stock_append.SerializeToString()
    assert lance.dataset(uri).count_rows() == 15


def test_a_rich_schema_is_recorded_exactly_as_pylance_records_it(tmp_path):
    uri = str(tmp_path / "types.lance")
    lance.write_dataset(RICH_SCHEMA.empty_table(), uri)
    stock = transaction(uri, 0)
    fields = transactions.schema_fields(RICH_SCHEMA)
    # the transaction file and the manifest both hold exactly these fields: ids, parents, logical types, metadata
    assert [f.SerializeToString() for f in fields] == [f.SerializeToString() for f in stock.overwrite.schema]
    assert [f.SerializeToString() for f in fields] == [f.SerializeToString() for f in manifest(uri, 1).fields]
    assert {f.name: f.logical_type for f in fields}["dec"] == "decimal:128:10:2"
    assert {f.name: f.logical_type for f in fields}["vec"] == "fixed_size_list:float:8"
    assert {f.name: f.parent_id for f in fields}["z"] == {f.name: f.id for f in fields}["item"]
    assert dict(fields[0].metadata) == {"comment": b"the key"}
    # pylance keeps the Arrow schema's own metadata in the manifest, not in the transaction file; the client sends it
    # in Overwrite.schema_metadata so that the manifest the coordinator builds carries it too
    assert dict(stock.overwrite.schema_metadata) == {}
    assert dict(manifest(uri, 1).schema_metadata) == transactions.schema_metadata(RICH_SCHEMA)
    assert transactions.schema_metadata(RICH_SCHEMA) == {"owner": b"sales", "schema.version": b"3"}


def test_deletes_equal_what_pylance_writes(tmp_path):
    uri = str(tmp_path / "del.lance")
    ds = lance.write_dataset(rows(0, 20), uri, max_rows_per_file=10)
    updated = ds.get_fragment(1).delete("id in (10, 13, 17)")
    assert ds.get_fragment(0).delete("id < 10") is None
    lance.LanceDataset.commit(uri, lance.LanceOperation.Delete([updated], [0], "id < 10 or id in (10, 13, 17)"),
                              read_version=1)
    stock = transaction(uri, 1)
    ours = transactions.delete(1, [updated], [0], "id < 10 or id in (10, 13, 17)")
    assert with_uuid(ours, stock).SerializeToString() == stock.SerializeToString()
    assert stock.delete.updated_fragments[0].deletion_file.num_deleted_rows == 3
    assert sorted(lance.dataset(uri).to_table()["id"].to_pylist()) == [11, 12, 14, 15, 16, 18, 19]


def test_compute_delete_extends_deletion_vectors_and_names_the_row_addresses(tmp_path):
    uri = str(tmp_path / "computed.lance")
    ds = lance.write_dataset(rows(0, 30), uri, max_rows_per_file=10)
    ds.delete("id = 25")  # an existing deletion vector the delete must extend
    ds = lance.dataset(uri)
    txn, affected = transactions.compute_delete(ds, "id < 10 or id % 7 = 0")
    assert txn.read_version == 2 and txn.delete.predicate == "id < 10 or id % 7 = 0"
    assert list(txn.delete.deleted_fragment_ids) == [0]
    assert [f.id for f in txn.delete.updated_fragments] == [1, 2]
    # fragment 1 loses ids 14; fragment 2 loses 21 and 28 on top of 25
    assert [f.deletion_file.num_deleted_rows for f in txn.delete.updated_fragments] == [1, 3]
    deleted_ids = [i for i in range(30) if (i < 10 or i % 7 == 0) and i != 25]
    assert list(BitMap64.deserialize(affected)) == [(i // 10) << 32 | (i % 10) for i in deleted_ids]


def test_a_delete_of_nothing_is_an_empty_delete(tmp_path):
    ds = lance.write_dataset(rows(0, 5), str(tmp_path / "none.lance"))
    txn, affected = transactions.compute_delete(ds, "id > 100")
    assert len(txn.delete.updated_fragments) == 0 and len(txn.delete.deleted_fragment_ids) == 0
    assert len(BitMap64.deserialize(affected)) == 0


def test_stable_row_id_fragments_convert_exactly(tmp_path):
    uri = str(tmp_path / "rowids.lance")
    ds = lance.write_dataset(rows(0, 20), uri, max_rows_per_file=10, enable_stable_row_ids=True)
    committed = [f.metadata for f in ds.get_fragments()]
    assert all(f.row_id_meta is not None for f in committed)
    assert [transactions.fragment(f).SerializeToString() for f in committed] == [
        f.SerializeToString() for f in manifest(uri, 1).fragments
    ]


def test_overlays_are_refused(tmp_path):
    frag = write_fragments(rows(0, 1), str(tmp_path / "o.lance"))[0]
    frag.overlays = [object()]
    with pytest.raises(ValueError, match="DataOverlay"):
        transactions.fragment(frag)


def test_compaction_and_index_transactions_equal_what_pylance_writes(tmp_path):
    from lance.optimize import Compaction, CompactionOptions

    uri = str(tmp_path / "maintained.lance")
    ds = lance.write_dataset(rows(0, 40), uri, max_rows_per_file=10)
    plan = Compaction.plan(ds, CompactionOptions(target_rows_per_fragment=1000))
    results = [task.execute(ds) for task in plan.tasks]
    assert [(t.read_version, t.WhichOneof("operation")) for t in transactions_of(uri)] == [(0, "overwrite")]
    Compaction.commit(ds, results)
    # pylance's own commit reserves the new fragments' ids first (a ReserveFragments, v2) and writes them into the
    # Rewrite; through the coordinator the new fragments keep id 0 and get ids when the Rewrite commits
    assert sorted((t.read_version, t.WhichOneof("operation")) for t in transactions_of(uri)) == [
        (0, "overwrite"), (1, "reserve_fragments"), (1, "rewrite")]
    stock = transaction(uri, 1, "rewrite")
    ours = with_uuid(transactions.rewrite(results), stock)
    assert [f.id for f in ours.rewrite.groups[0].new_fragments] == [0]
    for ours_group, stock_group in zip(ours.rewrite.groups, stock.rewrite.groups):
        for ours_fragment, stock_fragment in zip(ours_group.new_fragments, stock_group.new_fragments):
            ours_fragment.id = stock_fragment.id
    assert ours.SerializeToString() == stock.SerializeToString()

    ds = lance.dataset(uri)
    assert ds.version == 3
    segment = ds.create_index_uncommitted("id", "BTREE", name="id_idx", fragment_ids=[f.fragment_id for f in
                                                                                       ds.get_fragments()])
    ds.commit_existing_index_segments("id_idx", "id", [segment])
    stock = transaction(uri, 3)
    ours = with_uuid(transactions.create_index([segment]), stock)
    assert ours.create_index.new_indices[0].uuid == stock.create_index.new_indices[0].uuid
    # pylance's commit stamps created_at again at commit time and lists the segment's files in its own order
    for index in (ours.create_index.new_indices[0], stock.create_index.new_indices[0]):
        files = sorted(index.files, key=lambda f: f.path)
        del index.files[:]
        index.files.extend(files)
    assert abs(ours.create_index.new_indices[0].created_at - stock.create_index.new_indices[0].created_at) < 60_000
    ours.create_index.new_indices[0].created_at = stock.create_index.new_indices[0].created_at
    assert ours.SerializeToString() == stock.SerializeToString()
