"""The README's Python example, run as a user runs it, against the test coordinator."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import lance

from lance_commit import CommitClient

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"


def test_the_readme_example_runs_and_commits_three_versions(coordinator_url):
    run = subprocess.run([sys.executable, str(EXAMPLE), coordinator_url], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[:3] == ["created version 1", "appended version 2", "deleted in version 3"]
    assert ast.literal_eval(lines[3]) == {"id": [1, 3], "item": ["apple", "fig"]}
    table = CommitClient(coordinator_url).describe_table("sales$orders")
    assert table.version == 3
    assert sorted(lance.dataset(table.location).to_table()["id"].to_pylist()) == [1, 3]
