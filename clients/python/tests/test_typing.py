"""The package ships py.typed: its annotations must hold under mypy --strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "lance_commit"


def test_the_package_type_checks_strictly(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--cache-dir", str(tmp_path),
         str(PACKAGE)],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (PACKAGE / "py.typed").is_file()
