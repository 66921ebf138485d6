"""Stock pylance writers appending to one table for a fixed time: CommitBenchmark's pylance workload.

Usage: python pylance_bench.py CONFIG_JSON_FILE

The config says {"mode": "namespace" | "path", "url": REST URL (namespace), "table_id": [...] (namespace),
"uri": table URI (path), "storage_options": {...}, "writers": N, "seconds": S, "rows": R, "first_id": F,
"files_ahead": A}. Each writer thread writes A data files (lance.fragment.write_fragments) before the window opens,
as writers on other machines arrive with theirs, and one inside the window, before its clock starts, whenever those
run out (counted as "written_in_window"); it commits each with LanceDataset.commit: through the namespace
(namespace_client_managed_versioning=True: the client stages the manifest and calls CreateTableVersion) or on the path (Lance's own put-if-not-exists commit loop), from the version
its last commit returned. Only the commit is timed. Prints "WINDOW OPEN" and "WINDOW CLOSED" as the window opens and
closes, then "RESULT " and a JSON summary.
"""

import json
import sys
import threading
import time
from collections import Counter

import lance
import pyarrow as pa
from lance.namespace import DescribeTableRequest, RestNamespace


def rows(first, count):
    ids = list(range(first, first + count))
    return pa.table({"id": pa.array(ids, pa.int64()), "value": pa.array([f"v{i}" for i in ids], pa.string())})


def main(config_path):
    with open(config_path) as f:
        config = json.load(f)
    namespace = config["mode"] == "namespace"
    writers = config["writers"]
    count = config["rows"]
    options = config.get("storage_options") or {}
    lock = threading.Lock()
    next_id = [config["first_id"]]
    latencies = []
    in_window = [0]
    failures = Counter()
    begin = [0.0]
    deadline = [0.0]

    def open_window():  # run once every writer has its files written ahead, before any is released
        print("WINDOW OPEN", flush=True)  # the benchmark reads the CPU of this process and the coordinator's
        begin[0] = time.monotonic()
        deadline[0] = begin[0] + config["seconds"]

    start = threading.Barrier(writers + 1, action=open_window)
    ahead = config.get("files_ahead", 0)
    written_in_window = [0]

    def allocate():
        with lock:
            first = next_id[0]
            next_id[0] += count
            return first

    def writer():
        ns = RestNamespace(uri=config["url"]) if namespace else None
        table_id = config.get("table_id")
        location = (ns.describe_table(DescribeTableRequest(id=table_id)).location if namespace else config["uri"])
        seen = 1
        mine = []

        def write():
            return lance.fragment.write_fragments(rows(allocate(), count), location, storage_options=options)

        written = [write() for _ in range(ahead)]
        written.reverse()
        start.wait()
        while time.monotonic() < deadline[0]:
            if written:
                fragments = written.pop()
            else:
                fragments = write()
                with lock:
                    written_in_window[0] += 1
            if time.monotonic() >= deadline[0]:
                break
            t0 = time.monotonic()
            try:
                if namespace:
                    ds = lance.LanceDataset.commit(location, lance.LanceOperation.Append(fragments),
                                                   read_version=seen, storage_options=options,
                                                   namespace_client=ns, table_id=table_id,
                                                   namespace_client_managed_versioning=True)
                else:
                    ds = lance.LanceDataset.commit(location, lance.LanceOperation.Append(fragments),
                                                   read_version=seen, storage_options=options)
                t1 = time.monotonic()
                mine.append((int((t1 - t0) * 1e9), t1 <= deadline[0]))
                seen = ds.version
            except Exception as e:  # a failed commit is counted, the writer goes on
                message = str(e).split("\n")[0][:140]
                with lock:
                    failures[type(e).__name__ + ": " + message] += 1
        with lock:
            latencies.extend(n for n, _ in mine)
            in_window[0] += sum(1 for _, inside in mine if inside)

    threads = [threading.Thread(target=writer, daemon=True) for _ in range(writers)]
    for t in threads:
        t.start()
    start.wait()
    time.sleep(max(0.0, deadline[0] - time.monotonic()))
    print("WINDOW CLOSED", flush=True)
    for t in threads:
        t.join()
    elapsed = time.monotonic() - begin[0]
    print("RESULT " + json.dumps({
        "pylance": lance.__version__,
        "latencies_ns": latencies,
        "in_window": in_window[0],
        "rows": len(latencies) * count,
        "failures": dict(failures),
        "written_in_window": written_in_window[0],
        "window_ns": int(config["seconds"] * 1e9),
        "elapsed_ns": int(elapsed * 1e9),
    }), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
