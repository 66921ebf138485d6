#!/bin/bash
# upsperf.sh JARDIR OUTDIR AHEAD : the upserts cell (coordinator), perf record -g of the coordinator JVM for 15 s in the window
JD=$1; OD=$2; AH=$3
mkdir -p $OD
bash $(dirname $0)/ups.sh $JD $OD coordinator 300 $AH --coordinator-jvm-options "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" &
for i in $(seq 1 1200); do
  if grep -A1 "flushed what was written ahead" $OD/bench.log 2>/dev/null | grep -q "running coordinator"; then break; fi
  sleep 1
done
sleep 3
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
date +"perf %T" >> $OD/times.txt
perf record -F 499 -g -p $PID -o $OD/perf.data -- sleep 15 > $OD/perf.log 2>&1
wait
cd $OD && perf script -F comm,tid,ip,sym,dso -i perf.data > script.txt 2>/dev/null
