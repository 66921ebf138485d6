"""One writer's append latency through lance_commit's CommitClient (numbers for chaos-tests/BENCHMARK.md).

Creates a table, writes N one-row data files with pylance before the clock, then appends them one after the other
and prints the p50 and mean of the appends after the first fifth (warm-up). To compare two versions of the client,
run it with each on PYTHONPATH, e.g. the previous commit's from ``git archive <commit> clients/python/src``:

    PYTHONPATH=clients/python/src python clients/python/benchmarks/append_latency.py http://127.0.0.1:9101 400 new
"""
import statistics
import sys
import time
import uuid

import pyarrow as pa
from lance.fragment import write_fragments

from lance_commit import CommitClient


def rows(first: int, count: int) -> pa.Table:
    return pa.table({"id": pa.array(range(first, first + count), pa.int64())})


def main(url: str, n: int, label: str) -> None:
    client = CommitClient(url)
    try:
        namespace = "bench" + uuid.uuid4().hex[:8]
        client.create_namespace(namespace)
        table_id = [namespace, "appends"]
        table = client.declare_table(table_id)
        client.create_table(table_id, write_fragments(rows(0, 1), table.location), schema=rows(0, 0).schema)
        files = [write_fragments(rows(i + 1, 1), table.location) for i in range(n)]
        times = []
        for fragments in files:
            start = time.perf_counter()
            client.append(table_id, fragments)
            times.append(time.perf_counter() - start)
    finally:
        getattr(client, "close", lambda: None)()  # clients before kept-alive connections have no close()
    timed = times[n // 5:]
    print(f"{label:8} appends p50 {statistics.median(timed) * 1000:.2f} ms mean {statistics.mean(timed) * 1000:.2f} ms"
          f" ({len(timed)} timed)")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 400, sys.argv[3] if len(sys.argv) > 3 else "client")
