#!/bin/bash
# cell16.sh JARDIR OUTDIR "HARNESS_JVM_OPTS" PERF(0/1)
JD=$1; OD=$2; HO=$3; PF=$4
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED $HO -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 300 --data-files-ahead 1100 --coordinator-own-jvm true --systems coordinator \
  --coordinator-jvm-options "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" --out $OD/out > $OD/bench.log 2>&1 &
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
