#!/bin/bash
# run.sh JARDIR OUTDIR AHEAD SYSTEMS
JD=$1; OD=$2; AH=$3; SYS=$4
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads pylance --stores local --writers 8 --seconds 30 --warmup-seconds 120 --data-files-ahead $AH --settle-seconds 65 \
  --coordinator-own-jvm true --python /work/main/target/python-venv/bin/python --systems "$SYS" --out $OD/out > $OD/bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
