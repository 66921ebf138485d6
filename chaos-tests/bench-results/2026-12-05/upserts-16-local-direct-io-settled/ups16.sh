#!/bin/bash
# ups16.sh JARDIR OUTDIR SYSTEM PERF(0/1) WARMUP AHEAD
JD=$1; OD=$2; SYS=$3; PF=$4; WU=${5:-300}; AH=${6:-1100}
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
OWN=(); if [ "$SYS" = coordinator ]; then OWN=(--coordinator-own-jvm true --coordinator-jvm-options "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"); fi
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads upserts --stores local --writers 16 --seconds 30 --warmup-seconds $WU --data-files-ahead $AH --settle-seconds 65 --systems "$SYS" \
  "${OWN[@]}" --out $OD/out > $OD/bench.log 2>&1 &
B=$!
if [ "$PF" = 1 ]; then
  while [ $(grep -ac "running coordinator" bench.log) -lt 11 ]; do sleep 1; done
  sleep 8
  PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
  date +"perf %T" >> times.txt
  perf record -F 499 -g -p $PID -o perf.data -- sleep 15 > perf.log 2>&1
fi
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
if [ "$PF" = 1 ]; then perf script -F comm,tid,ip,sym,dso -i perf.data > script.txt 2>/dev/null; python3 /work/bench/lanesys.py script.txt > lanesys.txt; fi
