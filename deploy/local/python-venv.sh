#!/usr/bin/env bash
# Creates the Python test environment once: a virtual environment (default target/python-venv, or $LCC_PYTHON_VENV)
# with the requirements pinned in clients/python/requirements-test.txt (stock pylance and lance-namespace, pytest),
# recreated when that file changes; then installs the Python client from this working tree into it. Prints the
# environment's path on its last line. Fails (never skips) when python3 or its venv module is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV="${LCC_PYTHON_VENV:-$PWD/target/python-venv}"
REQUIREMENTS=clients/python/requirements-test.txt

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m venv --help >/dev/null 2>&1; then
  echo "python-venv: python3 with its venv module is required for the tests" \
    "(Debian/Ubuntu: apt-get install python3 python3-venv; .ci/run installs them)" >&2
  exit 1
fi

STAMP="$VENV/requirements-test.txt"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && cmp -s "$STAMP" "$REQUIREMENTS"; then
  echo "python-venv: $VENV is up to date" >&2
else
  echo "python-venv: creating $VENV from $REQUIREMENTS (pylance and pyarrow from PyPI: a minute or two)" >&2
  start=$(date +%s)
  if [ -f "$VENV/pyvenv.cfg" ]; then
    python3 -m venv --clear "$VENV"
  else
    python3 -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$STAMP"
  echo "python-venv: ready in $(( $(date +%s) - start )) s, $(du -sh "$VENV" | cut -f1)" >&2
fi
# The client as it is in this working tree, next to stock pylance (its dependencies are satisfied by the pins).
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ./clients/python
echo "$VENV"
