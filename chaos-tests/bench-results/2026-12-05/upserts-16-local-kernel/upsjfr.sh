#!/bin/bash
# upsjfr.sh JARDIR OUTDIR AHEAD : the upserts cell (coordinator), JFR (profile settings) of the coordinator JVM for 20 s in the window
JD=$1; OD=$2; AH=$3
mkdir -p $OD
bash $(dirname $0)/ups.sh $JD $OD coordinator 300 $AH "${@:4}" &
for i in $(seq 1 1200); do
  if grep -A1 "flushed what was written ahead" $OD/bench.log 2>/dev/null | grep -q "running coordinator"; then break; fi
  sleep 1
done
sleep 3
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
date +"jfr %T" >> $OD/times.txt
jcmd $PID JFR.start name=w duration=20s settings=profile filename=$OD/window.jfr > $OD/jfr.log 2>&1
wait
