"""What stock pylance does when the version it staged is taken before its CreateTableVersion reaches the coordinator.

Usage: python stock_client_races.py REST_URL NAMESPACE_PREFIX

Writer A commits through a namespace client that lets writer B append first, between A's reload and A's
CreateTableVersion request (a pure-Python LanceNamespace delegating to pylance's RestNamespace, which pylance calls
back for every namespace operation). Two tables:

- NAMESPACE_PREFIX_strict (managed_versioning=true): the coordinator refuses A's staged version; pylance asks
  DescribeTableVersion about it (twice: lose_or_retain, then verify_commit_outcome), sees another writer's commit
  there, backs off, reloads, rebases and stages the next version, which lands.
- NAMESPACE_PREFIX_ingest (also managed_versioning.appends_on_latest=true): the coordinator lands A's Append on the
  latest version in one request. pylance takes the answered location and keeps the manifest it staged. A then deletes
  and updates rows and compacts the table through the Dataset it got back, which calls the other writer's fragment by
  the id of its own.

And twice more ("_lagging"), with A committing from read version 1 after another writer made version 2 (what a
writer that keeps its read version does under concurrency): pylance loads version 2, stages version 3 with its
transaction's read_version still 1, and writer B takes version 3 first.

Prints "RESULT " and a JSON summary of what each writer saw; the calling test checks it.
"""

import json
import sys

import lance
import pyarrow as pa
from lance.namespace import CreateNamespaceRequest, DescribeTableRequest, RestNamespace
from lance_namespace import LanceNamespace


class Racing(LanceNamespace):
    """Delegates to `inner`; records the versions asked of Create/DescribeTableVersion; runs `race` once first."""

    def __init__(self, inner, race):
        self.inner = inner
        self.race = race
        self.created = []
        self.described = []

    def namespace_id(self):
        return "racing:" + self.inner.namespace_id()

    def create_table_version(self, request):
        self.created.append(request["version"])
        race, self.race = self.race, None
        if race is not None:
            race()
        return self.inner.create_table_version(request)

    def describe_table_version(self, request):
        self.described.append(request["version"])
        return self.inner.describe_table_version(request)


def _delegate(name):
    def method(self, *args, **kwargs):
        return getattr(self.inner, name)(*args, **kwargs)

    return method


for _name in dir(LanceNamespace):
    if (not _name.startswith("_") and _name not in Racing.__dict__
            and callable(getattr(LanceNamespace, _name))):
        setattr(Racing, _name, _delegate(_name))


def rows(first, count):
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "value": pa.array([f"v{i}" for i in ids], pa.string())})


def ids_of(ds):
    return sorted(ds.to_table(columns=["id"]).column("id").to_pylist())


def race(url, namespace, properties, stale_delete=False):
    plain = RestNamespace(uri=url)
    plain.create_namespace(CreateNamespaceRequest(id=[namespace], properties=properties))
    table_id = [namespace, "events"]
    lance.write_dataset(rows(0, 10), namespace_client=plain, table_id=table_id, mode="create")

    def other_writer_appends():
        lance.write_dataset(rows(100, 10), namespace_client=plain, table_id=table_id, mode="append")

    racing = Racing(RestNamespace(uri=url), other_writer_appends)
    returned = lance.write_dataset(rows(10, 10), namespace_client=racing, table_id=table_id, mode="append")
    seen = {
        "created": list(racing.created),
        "described": list(racing.described),
        "returned_version": returned.version,
        "returned_latest_version": returned.latest_version,
        "returned_ids": ids_of(returned),
        "returned_fragment_ids": sorted(f.fragment_id for f in returned.get_fragments()),
    }
    if stale_delete:
        # through the returned object, whose fragment 1 is the writer's own file but in the table the other writer's
        try:
            returned.delete("id >= 10 and id < 15")
            seen["stale_delete"] = "committed"
        except Exception as e:  # the coordinator refuses it; pylance reports the failed commit
            seen["stale_delete"] = "refused: " + type(e).__name__ + ": " + str(e).split("\n")[0][:300]
        seen["stale_delete_created"] = racing.created[len(seen["created"]):]
        try:
            returned.update({"value": "'changed'"}, where="id = 12")
            seen["stale_update"] = "committed"
        except Exception as e:
            seen["stale_update"] = "refused: " + type(e).__name__ + ": " + str(e).split("\n")[0][:300]
        try:
            # compacts its fragments 0 and 1 (its own rows) into one: applied, the table's fragment 1 would go
            metrics = returned.optimize.compact_files()
            seen["stale_compact"] = "committed: %d fragments removed" % metrics.fragments_removed
        except Exception as e:
            seen["stale_compact"] = "refused: " + type(e).__name__ + ": " + str(e).split("\n")[0][:300]
    reopened = lance.dataset(namespace_client=plain, table_id=table_id)
    seen["reopened_version"] = reopened.version
    seen["reopened_ids"] = ids_of(reopened)
    seen["reopened_fragment_ids"] = {
        str(f.fragment_id): sorted(f.to_table(columns=["id"]).column("id").to_pylist())
        for f in reopened.get_fragments()
    }
    latest = returned.checkout_version(returned.latest_version)
    seen["returned_checked_out_latest_ids"] = ids_of(latest)
    return seen


def lagging_race(url, namespace, properties):
    plain = RestNamespace(uri=url)
    plain.create_namespace(CreateNamespaceRequest(id=[namespace], properties=properties))
    table_id = [namespace, "events"]
    lance.write_dataset(rows(0, 10), namespace_client=plain, table_id=table_id, mode="create")
    lance.write_dataset(rows(200, 10), namespace_client=plain, table_id=table_id, mode="append")

    def other_writer_appends():
        lance.write_dataset(rows(100, 10), namespace_client=plain, table_id=table_id, mode="append")

    described = plain.describe_table(DescribeTableRequest(id=table_id))
    options = described.storage_options or {}
    fragments = lance.fragment.write_fragments(rows(10, 10), described.location, storage_options=options)
    racing = Racing(RestNamespace(uri=url), other_writer_appends)
    returned = lance.LanceDataset.commit(described.location, lance.LanceOperation.Append(fragments), read_version=1,
                                         storage_options=options, namespace_client=racing, table_id=table_id,
                                         namespace_client_managed_versioning=True)
    reopened = lance.dataset(namespace_client=plain, table_id=table_id)
    return {
        "created": racing.created,
        "described": racing.described,
        "returned_version": returned.version,
        "reopened_version": reopened.version,
        "reopened_ids": ids_of(reopened),
    }


def main(url, prefix):
    summary = {
        "pylance": lance.__version__,
        "strict": race(url, prefix + "_strict", {"managed_versioning": "true"}),
        "ingest": race(url, prefix + "_ingest",
                       {"managed_versioning": "true", "managed_versioning.appends_on_latest": "true"},
                       stale_delete=True),
        "strict_lagging": lagging_race(url, prefix + "_strict_lagging", {"managed_versioning": "true"}),
        "ingest_lagging": lagging_race(url, prefix + "_ingest_lagging",
                                       {"managed_versioning": "true", "managed_versioning.appends_on_latest": "true"}),
    }
    print("RESULT " + json.dumps(summary), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
