"""The Python example of README.md's "Using it", between the README markers (ReadmeSnippetsTest keeps the README copy
identical; tests/test_quickstart.py runs it against a coordinator).

Usage: python quickstart.py [COORDINATOR_URL]
"""

import sys

import lance
import pyarrow as pa
from lance.fragment import write_fragments

from lance_commit import CommitClient


def main(url: str) -> None:
    # README-BEGIN python
    client = CommitClient(url)  # api_key="..." or token="..." when the coordinator has auth on
    client.create_namespace("sales")
    table = client.declare_table("sales$orders")  # where to write, with vended storage options

    data = pa.table({"id": pa.array([1, 2], pa.int64()), "item": ["apple", "pear"]})
    fragments = write_fragments(data, table.location, storage_options=table.storage_options)
    print("created version", client.create_table("sales$orders", fragments, schema=data.schema).version)

    more = write_fragments(pa.table({"id": pa.array([3], pa.int64()), "item": ["fig"]}), table.location,
                           storage_options=table.storage_options)
    print("appended version", client.append("sales$orders", more).version)
    print("deleted in version", client.delete("sales$orders", "item = 'pear'").version)

    print(lance.dataset(table.location, storage_options=table.storage_options).to_table().to_pydict())
    # README-END python


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:9101")
