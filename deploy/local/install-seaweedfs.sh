#!/usr/bin/env bash
# Installs the SeaweedFS `weed` binary (Apache-2.0) with `go install` from the Go module proxy, idempotently.
# The credential-vending tests use it as a real S3 store with STS and IAM policy enforcement
# (see coordinator/src/test/java/dev/lancecommit/testing/SeaweedFsFixture.java).
#
# Installs to $(go env GOPATH)/bin/weed and records the module version beside it in weed.version; a second run
# with the same version does nothing. Prints the binary's path on its last line.
#
# Environment:
#   SEAWEEDFS_VERSION  module version to install (default below)
#   GOFLAGS            passed through; the build is large, GOFLAGS=-p=1 keeps its memory down on small machines
set -euo pipefail

VERSION="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin /usr/lib/go/bin; do
    if [ -x "$candidate/go" ]; then PATH="$candidate:$PATH"; fi
  done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-seaweedfs: no Go toolchain found (need go >= 1.24 on PATH)" >&2
  exit 1
fi

BIN_DIR="$(go env GOPATH)/bin"
WEED="$BIN_DIR/weed"
STAMP="$BIN_DIR/weed.version"

if [ -x "$WEED" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VERSION" ]; then
  echo "install-seaweedfs: $VERSION already installed" >&2
  echo "$WEED"
  exit 0
fi

# `go install weed@VERSION` is refused because SeaweedFS's go.mod has a replace directive, so the module is
# downloaded through the module proxy into the module cache and built there as the main module.
echo "install-seaweedfs: building github.com/seaweedfs/seaweedfs/weed@$VERSION (several minutes)" >&2
start=$(date +%s)
SRC="$(GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@$VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
if [ -z "$SRC" ] || [ ! -d "$SRC/weed" ]; then
  echo "install-seaweedfs: could not download github.com/seaweedfs/seaweedfs@$VERSION" >&2
  exit 1
fi
mkdir -p "$BIN_DIR"
(cd "$SRC" && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$WEED.tmp" ./weed)
mv -f "$WEED.tmp" "$WEED"
echo "$VERSION" > "$STAMP"
echo "install-seaweedfs: built in $(( $(date +%s) - start )) s" >&2
echo "$WEED"
