#!/usr/bin/env bash
# Runs the coordinator on its embedded default: local warehouse in ./warehouse, embedded single-node Kafka (data in
# ./.lcc/kafka). Builds the jar first when it is missing. Any coordinator option can follow, e.g. --port 0
# --warehouse /data/wh. Stop it with Ctrl-C; `rm -rf ./warehouse ./.lcc` (service stopped) starts over from nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f coordinator/target/coordinator.jar ]; then
  mkdir -p .lcc
  echo "run.sh: building the coordinator jar (first run only, a minute or two; full log in .lcc/build.log)" >&2
  # Maven's module headers as progress; everything else goes to the log
  if ! mvn -B -ntp package -DskipTests -pl coordinator -am 2>&1 | tee .lcc/build.log \
      | grep --line-buffered -E '^\[INFO\] Building .*\[[0-9]+/[0-9]+\]$|^\[INFO\] BUILD|^\[ERROR\]' >&2; then
    echo "run.sh: the build failed; see .lcc/build.log" >&2
    exit 1
  fi
fi
exec java --add-opens=java.base/java.nio=ALL-UNNAMED -jar coordinator/target/coordinator.jar "$@"
