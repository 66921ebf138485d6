"""Drives a Lance commit coordinator with the stock Python clients (pylance's REST namespace and commit path).

Usage: python stock_client.py REST_URL NAMESPACE

The process is given nothing but the coordinator's URL: storage credentials come from the namespace (vended in
DescribeTable/DeclareTable). NAMESPACE is created with managed_versioning=true, so every commit of its tables goes
through CreateTableVersion. Each step checks its own result; any failure exits non-zero. The last line printed is
"RESULT " followed by a JSON summary the calling test checks against the coordinator's own state.
"""

import json
import sys

import lance
import pyarrow as pa
from lance.namespace import (
    CreateNamespaceRequest,
    DeregisterTableRequest,
    DescribeTableRequest,
    DropTableRequest,
    ListTablesRequest,
    ListTableVersionsRequest,
    RegisterTableRequest,
    RenameTableRequest,
    RestNamespace,
)


def rows(first, count):
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "value": pa.array([f"v{i}" for i in ids], pa.string())})


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def read_ids(ns, table_id):
    ds = lance.dataset(namespace_client=ns, table_id=table_id)
    return ds.version, sorted(ds.to_table(columns=["id"]).column("id").to_pylist())


def main(url, namespace):
    ns = RestNamespace(uri=url)
    ns.create_namespace(CreateNamespaceRequest(id=[namespace], properties={"managed_versioning": "true"}))
    table_id = [namespace, "orders"]
    summary = {"versions": [], "pylance": lance.__version__}

    # v1: write_dataset(create) declares the table and commits it through CreateTableVersion
    ds = lance.write_dataset(rows(0, 10), namespace_client=ns, table_id=table_id, mode="create")
    check(ds.version == 1, f"create made version {ds.version}")
    described = ns.describe_table(DescribeTableRequest(id=table_id))
    check(described.managed_versioning is True, f"managed_versioning is {described.managed_versioning}")
    options = described.storage_options or {}
    check("aws_access_key_id" in options and "aws_endpoint" in options, f"no vended credentials: {sorted(options)}")
    summary["location"] = described.location
    summary["vended_keys"] = sorted(options)

    # v2: fragments written with the vended credentials, committed with namespace-managed versioning
    fragments = lance.fragment.write_fragments(rows(10, 10), described.location, storage_options=options)
    committed = lance.LanceDataset.commit(
        described.location,
        lance.LanceOperation.Append(fragments),
        read_version=1,
        storage_options=options,
        namespace_client=ns,
        table_id=table_id,
        namespace_client_managed_versioning=True,
    )
    check(committed.version == 2, f"managed commit made version {committed.version}")

    # v3: write_dataset(append) through the namespace
    ds = lance.write_dataset(rows(20, 10), namespace_client=ns, table_id=table_id, mode="append")
    check(ds.version == 3, f"append made version {ds.version}")

    listed = ns.list_table_versions(ListTableVersionsRequest(id=table_id, descending=True))
    summary["versions"] = [v.version for v in listed.versions]
    check(summary["versions"] == [3, 2, 1], f"versions listed: {summary['versions']}")
    version, ids = read_ids(ns, table_id)
    check(version == 3 and ids == list(range(30)), f"read version {version} ids {ids}")
    summary["rows"] = len(ids)

    # rename (the data stays), deregister, register, drop
    renamed = [namespace, "orders_renamed"]
    ns.rename_table(RenameTableRequest(id=table_id, new_table_name="orders_renamed"))
    tables = ns.list_tables(ListTablesRequest(id=[namespace])).tables
    check(list(tables) == ["orders_renamed"], f"tables after rename: {tables}")
    ds = lance.write_dataset(rows(30, 5), namespace_client=ns, table_id=renamed, mode="append")
    check(ds.version == 4, f"append after rename made version {ds.version}")
    ns.deregister_table(DeregisterTableRequest(id=renamed))
    check(list(ns.list_tables(ListTablesRequest(id=[namespace])).tables) == [], "table still listed")
    ns.register_table(RegisterTableRequest(id=renamed, location=described.location))
    version, ids = read_ids(ns, renamed)
    check(version == 4 and ids == list(range(35)), f"after register: version {version} ids {ids}")
    summary["final_version"] = version
    ns.drop_table(DropTableRequest(id=renamed))
    summary["dropped"] = True
    print("RESULT " + json.dumps(summary), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
