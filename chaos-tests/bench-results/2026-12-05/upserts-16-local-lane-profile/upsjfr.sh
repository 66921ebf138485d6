#!/bin/bash
# upsjfr.sh JARDIR OUTDIR : the upserts cell (coordinator) with a JFR of the coordinator JVM over the 30 s window only
JD=$1; OD=$2
mkdir -p $OD
bash /work/bench/s46/ups.sh $JD $OD coordinator 300 2200 &
for i in $(seq 1 900); do
  if grep -A1 "flushed what was written ahead" $OD/bench.log 2>/dev/null | grep -q "running coordinator"; then break; fi
  sleep 1
done
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
jcmd $PID JFR.start duration=30s filename=$OD/window.jfr settings=profile > $OD/jfr-start.txt 2>&1
wait
