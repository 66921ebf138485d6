#!/bin/bash
# cell.sh JARDIR OUTDIR WRITERS WARMUP AHEAD "COORDINATOR_JVM_OPTS"
JD=$1; OD=$2; W=$3; WU=$4; AH=$5; CO=$6
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers $W --seconds 30 --warmup-seconds $WU --data-files-ahead $AH --coordinator-own-jvm true --systems coordinator \
  --settle-seconds 65 --coordinator-jvm-options "$CO -Xlog:gc:file=$OD/gc.log:time" --out $OD/out > $OD/bench.log 2>&1 &
B=$!
( while ! grep -aq "writing .* before the window\|settling" bench.log 2>/dev/null; do sleep 1; done
  while [ $(grep -ac "running coordinator" bench.log) -lt $(( $(grep -ac "running coordinator" bench.log) )) ]; do sleep 1; done ) 
# the window starts at the last "running coordinator" line after the settle
( while ! grep -aq "settling" bench.log; do sleep 1; done
  n=$(grep -ac "running coordinator" bench.log)
  while [ $(grep -ac "running coordinator" bench.log) -le $n ]; do sleep 0.2; done
  date +"window %T" >> times.txt ) &
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
