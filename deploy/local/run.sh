#!/usr/bin/env bash
# Runs the coordinator on its embedded default: local warehouse in ./warehouse, embedded single-node Kafka.
# Builds the jar first when it is missing. Any coordinator option can follow, e.g. --port 0 --warehouse /data/wh.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f coordinator/target/coordinator.jar ]; then
  mvn -B -q install -DskipTests
fi
exec java --add-opens=java.base/java.nio=ALL-UNNAMED -jar coordinator/target/coordinator.jar "$@"
