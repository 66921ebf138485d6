"""Reads and makes tags and branches of a table the Lance commit coordinator manages, with stock pylance.

Usage: python refs_client.py TABLE_PATH

The coordinator has tagged version 1 'release' and made branch 'dev' from version 2 with one commit on it. pylance
must list and check out both; it then makes a tag 'py-made' on version 2 itself, which the calling test reads back
through the coordinator. The last line printed is "RESULT " followed by a JSON summary.
"""

import json
import sys

import lance


def check(condition, message):
    if not condition:
        raise AssertionError(message)


path = sys.argv[1]
ds = lance.dataset(path)
tags = ds.tags.list()
check(set(tags) == {"release"}, f"tags seen by pylance: {tags}")
check(tags["release"]["version"] == 1 and tags["release"]["branch"] is None, f"release: {tags['release']}")
check(ds.tags.get_version("release") == 1, "get_version(release)")
tagged = lance.dataset(path, version="release")
check(tagged.version == 1, f"checked out the tag at {tagged.version}")
tagged_ids = sorted(tagged.to_table(columns=["id"]).column("id").to_pylist())

branches = ds.branches.list()
check(set(branches) == {"dev"}, f"branches seen by pylance: {branches}")
check(branches["dev"]["parent_version"] == 2 and branches["dev"]["parent_branch"] is None, f"dev: {branches['dev']}")
dev = ds.checkout_version(("dev", None))
dev_ids = sorted(dev.to_table(columns=["id"]).column("id").to_pylist())

ds.tags.create("py-made", 2)
print("RESULT " + json.dumps({
    "main_version": ds.version,
    "tagged_ids": tagged_ids,
    "dev_version": dev.version,
    "dev_ids": dev_ids,
}))
