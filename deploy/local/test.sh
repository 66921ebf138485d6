#!/usr/bin/env bash
# The project's test command (README.md and .ci/run both call exactly this).
# Needs JDK 17, Maven, Go >= 1.24 and python3 with its venv module on the machine (README.md, "Prerequisites").
# Installs SeaweedFS (once) for the credential-vending tests and the Python test environment (once) for the stock
# Python client and lance_commit tests; every other server the tests use (s3proxy, a Kafka KRaft broker, the
# coordinator, Lance itself) comes from Maven Central or PyPI and is started by the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."

# SeaweedFS (Apache-2.0): a real S3 + STS + IAM policy engine. Built from the Go module proxy on first use (several
# minutes), a no-op afterwards. Two lines so that a failed install fails here instead of being hidden.
SEAWEEDFS_WEED="$(bash deploy/local/install-seaweedfs.sh | tail -1)"
export SEAWEEDFS_WEED

# The Python test environment (pylance 14.0.2, pytest, lance_commit from clients/python). With LCC_PYTHON_VENV set,
# the Python tests fail instead of skipping when something is wrong with it.
LCC_PYTHON_VENV="$(bash deploy/local/python-venv.sh | tail -1)"
export LCC_PYTHON_VENV

mvn -B verify "$@"
