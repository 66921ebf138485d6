#!/usr/bin/env bash
# The project's test command (README.md and .ci/run both call exactly this).
# Needs JDK 17, Maven and Go on the machine. Installs SeaweedFS (once) for the credential-vending tests; every other
# server the tests use (s3proxy, a Kafka KRaft broker, Lance itself) comes from Maven Central and is started by the
# tests themselves.
set -euo pipefail
cd "$(dirname "$0")/../.."

# SeaweedFS (Apache-2.0): a real S3 + STS + IAM policy engine. Built from the Go module proxy on first use (several
# minutes), a no-op afterwards. Two lines so that a failed install fails here instead of being hidden.
SEAWEEDFS_WEED="$(bash deploy/local/install-seaweedfs.sh | tail -1)"
export SEAWEEDFS_WEED

mvn -B verify "$@"
