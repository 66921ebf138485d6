"""CommitClient against a real coordinator, writing with real pylance 14.0.2 and reading back with stock readers."""

from __future__ import annotations

import concurrent.futures
import socket
import time

import lance
import pyarrow as pa
import pytest
from lance.fragment import write_fragments

from conftest import FAST_RETRIES, rows
from lance_commit import (
    CommitClient,
    CommitRequest,
    CommitStateUnknownError,
    IncompatibleConflictError,
    InvalidInputError,
    NamespaceNotFoundError,
    RetryableConflictError,
    RetryPolicy,
    TableAlreadyExistsError,
    TableNotFoundError,
    ThrottledError,
    _protos,
    transactions,
)
from lance_commit.errors import error_for
from lance_files import manifest
from test_transactions import RICH_SCHEMA


def ids(location: str, version=None) -> list:
    return sorted(lance.dataset(location, version=version).to_table(columns=["id"])["id"].to_pylist())


def create(client: CommitClient, table_id: str, first: int = 0, count: int = 10):
    table = client.declare_table(table_id)
    fragments = write_fragments(rows(first, count), table.location, storage_options=table.storage_options)
    result = client.create_table(table_id, fragments, schema=rows(0, 0).schema)
    return table, result


def test_create_append_delete_overwrite_read_back_with_pylance(client, namespace):
    table_id = [namespace, "orders"]
    table, created = create(client, table_id)
    assert table.version is None and table.table_id == table_id
    assert (created.version, created.read_version, created.operation) == (1, 0, "Overwrite")

    appended = client.append(f"{namespace}$orders", write_fragments(rows(10, 5), table.location))
    assert (appended.version, appended.read_version, appended.operation) == (2, 1, "Append")
    deleted = client.delete(table_id, "id % 2 = 0")
    assert (deleted.version, deleted.operation) == (3, "Delete")
    assert ids(table.location) == [i for i in range(15) if i % 2]
    assert ids(table.location, version=2) == list(range(15))

    described = client.describe_table(table_id)
    assert (described.location, described.version) == (table.location, 3)
    replaced = client.overwrite(table_id, write_fragments(rows(100, 3), table.location), schema=rows(0, 0).schema)
    assert (replaced.version, replaced.read_version) == (4, 3)
    assert ids(table.location) == [100, 101, 102]
    assert lance.dataset(table.location).to_table()["value"].to_pylist() == ["v100", "v101", "v102"]


def test_the_schema_is_recorded_exactly_as_pylance_records_it(client, namespace, tmp_path):
    # the same Arrow schema: once through the client and the coordinator, once with pylance alone
    table = client.declare_table([namespace, "rich"])
    client.create_table([namespace, "rich"], write_fragments(RICH_SCHEMA.empty_table(), table.location),
                        schema=RICH_SCHEMA)
    stock = str(tmp_path / "stock.lance")
    lance.write_dataset(RICH_SCHEMA.empty_table(), stock)

    ours, theirs = manifest(table.location, 1), manifest(stock, 1)
    assert [f.SerializeToString() for f in ours.fields] == [f.SerializeToString() for f in theirs.fields]
    assert dict(ours.schema_metadata) == dict(theirs.schema_metadata) == {"owner": b"sales", "schema.version": b"3"}
    assert lance.dataset(table.location).schema == lance.dataset(stock).schema


def test_concurrent_appends_and_deletes_from_many_threads(client, namespace):
    table_id = [namespace, "busy"]
    table, _ = create(client, table_id, 0, 100)
    appenders, per_appender, deleters = 6, 3, 4

    def append(worker: int) -> list:
        versions = []
        for k in range(per_appender):
            first = 1000 + (worker * per_appender + k) * 10
            versions.append(client.append(table_id, write_fragments(rows(first, 10), table.location)).version)
        return versions

    def delete(worker: int) -> int:
        # disjoint rows of the same fragment: the coordinator merges the deletion vectors
        return client.delete(table_id, f"id >= {worker * 25} and id < {worker * 25 + 10}").version

    with concurrent.futures.ThreadPoolExecutor(max_workers=appenders + deleters) as pool:
        appends = [pool.submit(append, w) for w in range(appenders)]
        deletes = [pool.submit(delete, w) for w in range(deleters)]
        versions = [v for f in appends for v in f.result()] + [f.result() for f in deletes]

    # Commits waiting together may share a version (group commit): every version after the create was answered to at
    # least one commit, none beyond the latest, and each appender's own commits got rising versions.
    latest = lance.dataset(table.location).version
    assert 2 <= latest <= 1 + appenders * per_appender + deleters
    assert sorted(set(versions)) == list(range(2, latest + 1))
    for f in appends:
        assert f.result() == sorted(set(f.result()))
    expected = [i for i in range(100) if not any(w * 25 <= i < w * 25 + 10 for w in range(deleters))]
    expected += list(range(1000, 1000 + appenders * per_appender * 10))
    assert ids(table.location) == sorted(expected)


def test_an_append_answered_409_14_is_rebuilt_on_the_conflicting_version(client, namespace):
    table_id = [namespace, "projected"]
    table, _ = create(client, table_id)
    stale = transactions.append(1, write_fragments(rows(10, 5), table.location))
    # a Project (here: the same schema, not preserving nullability) makes appends built before it retryable
    project = _protos.Transaction(read_version=1, uuid="0b3a6a5e-3c53-4b8e-9d3c-1f3e3a1e0f01")
    project.project.schema.extend(transactions.schema_fields(rows(0, 0).schema))
    assert client.commit(table_id, project.SerializeToString()).version == 2

    result = client.commit(table_id, stale.SerializeToString())
    assert (result.version, result.read_version, result.transaction_uuid) == (3, 2, stale.uuid)
    assert ids(table.location) == list(range(15))


def test_other_retryable_conflicts_name_the_version_and_can_be_rebuilt(client, namespace):
    table_id = [namespace, "deletes"]
    table, _ = create(client, table_id)
    v1 = lance.dataset(table.location, version=1)
    first, first_rows = transactions.compute_delete(v1, "id < 5")
    second, second_rows = transactions.compute_delete(v1, "id < 3")
    assert client.commit_request(table_id, CommitRequest(first.SerializeToString(), first_rows)).version == 2
    with pytest.raises(RetryableConflictError) as conflict:
        client.commit_request(table_id, CommitRequest(second.SerializeToString(), second_rows))
    assert (conflict.value.status, conflict.value.code) == (409, 14)
    assert (conflict.value.conflicting_version, conflict.value.conflicting_operation) == (2, "Delete")

    calls = []

    def rebuild(read_version: int) -> CommitRequest:
        calls.append(read_version)
        txn, affected = transactions.compute_delete(lance.dataset(table.location, version=read_version), "id < 3")
        return CommitRequest(txn.SerializeToString(), affected)

    # built on version 1 it conflicts again; the client calls back with version 2 and commits
    result = client.commit_rebuilding(table_id, 1, rebuild)
    assert calls == [1, 2] and result.version == 3
    assert ids(table.location) == list(range(5, 10))


def test_a_conflicts_own_members_win_over_its_text():
    body = {
        "error": "Retryable commit conflict",
        "code": 14,
        "detail": "conflicting version 3, operation Append",
        "conflicting_version": 41,
        "conflicting_operation": "Rewrite",
    }
    conflict = error_for("CommitTable t", 409, body)
    assert isinstance(conflict, RetryableConflictError)
    assert (conflict.conflicting_version, conflict.conflicting_operation) == (41, "Rewrite")
    # members of the wrong type are ignored, and the text (an older coordinator's only record) is read instead
    older = {"error": "Incompatible commit conflict with version 5 (Delete)", "code": 19,
             "conflicting_version": True, "conflicting_operation": 7}
    refused = error_for("CommitTable t", 409, older)
    assert isinstance(refused, IncompatibleConflictError)
    assert (refused.conflicting_version, refused.conflicting_operation) == (5, "Delete")


def test_incompatible_conflicts_and_refusals_are_definite(client, namespace):
    table_id = [namespace, "refusals"]
    table, _ = create(client, table_id)
    stale_append = transactions.append(1, write_fragments(rows(10, 1), table.location))
    client.overwrite(table_id, write_fragments(rows(50, 2), table.location), schema=rows(0, 0).schema)
    with pytest.raises(IncompatibleConflictError) as incompatible:
        client.commit(table_id, stale_append.SerializeToString())
    assert (incompatible.value.code, incompatible.value.conflicting_version) == (19, 2)
    assert incompatible.value.conflicting_operation == "Overwrite"

    with pytest.raises(TableAlreadyExistsError) as exists:
        client.declare_table(table_id)
    assert (exists.value.status, exists.value.code) == (409, 5)
    with pytest.raises(TableNotFoundError):
        client.append([namespace, "missing"], [])
    with pytest.raises(NamespaceNotFoundError):
        client.declare_table(["no_such_namespace_" + namespace, "t"])
    outside = transactions.append(2, write_fragments(rows(0, 1), table.location))
    outside.append.fragments[0].files[0].path = "../../elsewhere.lance"
    with pytest.raises(InvalidInputError) as invalid:
        client.commit(table_id, outside.SerializeToString())
    assert (invalid.value.status, invalid.value.code) == (400, 13)
    with pytest.raises(ValueError, match="not a Lance Transaction"):
        client.commit(table_id, b"\xff\xff not a protobuf")
    assert ids(table.location) == [50, 51]


def test_lost_answers_are_resubmitted_with_the_same_bytes(client, namespace, proxy):
    table_id = [namespace, "lost"]
    table, _ = create(client, table_id)
    through_proxy = CommitClient(proxy.url, retry=FAST_RETRIES)
    # the first "lost" meets a kept-alive connection and is sent again at once on a new one; the second meets that
    # new connection, so the client sees no answer and resubmits after a pause
    proxy.inject("lost-503", "lost", "lost")

    result = through_proxy.append(table_id, write_fragments(rows(10, 5), table.location))
    # the first attempt landed; its resubmissions (identical bytes) were answered with the same version
    assert result.version == 2
    assert proxy.forwarded_commits == 4 and len(set(proxy.commit_bodies)) == 1
    assert lance.dataset(table.location).version == 2
    # the answer to a resubmission names the fragment ids the first attempt's version gave, as stock Lance reads them
    before = {f.fragment_id for f in lance.dataset(table.location, version=1).get_fragments()}
    added = [f.fragment_id for f in lance.dataset(table.location).get_fragments() if f.fragment_id not in before]
    assert added and list(result.new_fragment_ids) == added and result.group_size == 1
    assert ids(table.location) == list(range(15))


def test_a_kept_alive_connection_the_server_closed_is_replaced_without_a_retry(client, namespace, proxy):
    table_id = [namespace, "stale"]
    table, _ = create(client, table_id)
    # no retry budget: a commit that met the closed connection as "no answer" would raise CommitStateUnknownError
    no_retries = CommitClient(proxy.url, retry=RetryPolicy(retry_budget=0.0))
    proxy.inject("close-after")

    first = no_retries.append(table_id, write_fragments(rows(10, 5), table.location))
    connections_before = proxy.connections
    second = no_retries.append(table_id, write_fragments(rows(15, 5), table.location))

    assert (first.version, second.version) == (2, 3)
    assert proxy.forwarded_commits == 2  # the request on the closed connection never reached the coordinator
    assert proxy.connections == connections_before + 1  # the thread's connection was replaced once
    third = no_retries.append(table_id, write_fragments(rows(20, 5), table.location))
    assert third.version == 4 and proxy.connections == connections_before + 1  # and then kept alive
    assert ids(table.location) == list(range(25))
    no_retries.close()


def test_commits_go_straight_to_the_owner_an_answer_names(client, coordinator_url, namespace, proxy):
    table_id = [namespace, "owned"]
    table, _ = create(client, table_id)
    append = lambda c, first: c.append(table_id, write_fragments(rows(first, 1), table.location)).version  # noqa: E731

    routed = CommitClient(proxy.url, retry=FAST_RETRIES)
    proxy.inject(("served-by", coordinator_url))
    assert append(routed, 10) == 2
    assert append(routed, 11) == 3 and append(routed, 12) == 4
    assert proxy.forwarded_commits == 1  # then straight to the owner

    # an owner that cannot be reached: the commit goes to the configured URL and stays there
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    other = CommitClient(proxy.url, retry=FAST_RETRIES)
    proxy.inject(("served-by", dead))
    assert append(other, 13) == 5 and append(other, 14) == 6 and append(other, 15) == 7
    assert proxy.forwarded_commits == 4

    # never followed when turned off, nor to another scheme
    off = CommitClient(proxy.url, retry=FAST_RETRIES, route_to_owner=False)
    proxy.inject(("served-by", coordinator_url))
    assert append(off, 16) == 8 and append(off, 17) == 9
    https = CommitClient(proxy.url, retry=FAST_RETRIES)
    proxy.inject(("served-by", coordinator_url.replace("http://", "https://")))
    assert append(https, 18) == 10 and append(https, 19) == 11
    assert proxy.forwarded_commits == 8
    assert ids(table.location) == list(range(20))


def test_throttling_honours_retry_after(client, namespace, proxy):
    table_id = [namespace, "throttled"]
    table, _ = create(client, table_id)
    through_proxy = CommitClient(proxy.url, retry=FAST_RETRIES)
    proxy.inject(("429", 1))
    started = time.monotonic()
    result = through_proxy.append(table_id, write_fragments(rows(10, 1), table.location))
    assert time.monotonic() - started >= 1.0
    assert result.version == 2 and proxy.forwarded_commits == 1

    proxy.inject(*[("429", 0)] * 1000)
    with pytest.raises(ThrottledError) as throttled:
        CommitClient(proxy.url, retry=FAST_RETRIES).append(table_id, [])
    assert (throttled.value.status, throttled.value.code) == (429, 21)
    assert lance.dataset(table.location).version == 2


def test_an_unknown_outcome_is_reported_and_settled_by_resubmitting(client, namespace, proxy):
    table_id = [namespace, "unknown"]
    table, _ = create(client, table_id)
    proxy.inject("lost-503", *["503"] * 1000)
    with pytest.raises(CommitStateUnknownError) as unknown:
        CommitClient(proxy.url, retry=FAST_RETRIES).append(table_id, write_fragments(rows(10, 2), table.location))
    assert (unknown.value.status, unknown.value.code) == (503, 17)
    proxy.faults.clear()
    # the first attempt had landed: resubmitting the same request answers that version and writes nothing
    settled = client.commit_request(table_id, unknown.value.request)
    assert settled.version == 2
    assert lance.dataset(table.location).version == 2 and ids(table.location) == list(range(12))


def test_compaction_and_index_segments_built_with_pylance_are_committed(client, namespace):
    from lance.optimize import Compaction, CompactionOptions

    table_id = [namespace, "maintained"]
    table = client.declare_table(table_id)
    client.create_table(table_id, write_fragments(rows(0, 40), table.location, max_rows_per_file=10),
                        schema=rows(0, 0).schema)
    client.delete(table_id, "id < 5")
    ds = lance.dataset(table.location)
    results = [task.execute(ds) for task in Compaction.plan(ds, CompactionOptions(target_rows_per_fragment=1000)).tasks]
    compacted = client.compact(table_id, *results)
    assert (compacted.version, compacted.operation) == (3, "Rewrite")
    ds = lance.dataset(table.location)
    assert len(ds.get_fragments()) == 1 and ids(table.location) == list(range(5, 40))

    segment = ds.create_index_uncommitted("id", "BTREE", name="id_idx",
                                          fragment_ids=[f.fragment_id for f in ds.get_fragments()])
    assert lance.dataset(table.location).describe_indices() == []
    indexed = client.create_index(table_id, [segment])
    assert (indexed.version, indexed.operation) == (4, "CreateIndex")
    ds = lance.dataset(table.location)
    assert [(i.name, i.num_rows_indexed) for i in ds.describe_indices()] == [("id_idx", 35)]
    assert ds.to_table(filter="id = 17")["id"].to_pylist() == [17]
    assert "ScalarIndexQuery" in ds.scanner(filter="id = 17").explain_plan()
