#!/bin/bash
# ups.sh JARDIR OUTDIR SYSTEM WARMUP AHEAD EXTRA...
JD=$1; OD=$2; SYS=$3; WU=$4; AH=$5; shift 5
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
OWN=(); if [ "$SYS" = coordinator ]; then OWN=(--coordinator-own-jvm true); fi
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads upserts --stores local --writers 16 --seconds 30 --warmup-seconds $WU --data-files-ahead $AH --settle-seconds 65 --systems "$SYS" \
  "${OWN[@]}" "$@" --out $OD/out > $OD/bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
