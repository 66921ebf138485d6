#!/bin/bash
# upsproc.sh JARDIR OUTDIR AHEAD : the upserts cell (coordinator), with user/system CPU of the coordinator JVM's threads over the window
JD=$1; OD=$2; AH=$3
mkdir -p $OD
bash $(dirname $0)/ups.sh $JD $OD coordinator 300 $AH "${@:4}" &
for i in $(seq 1 1200); do
  if grep -A1 "flushed what was written ahead" $OD/bench.log 2>/dev/null | grep -q "running coordinator"; then break; fi
  sleep 1
done
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
snap() { for t in /proc/$PID/task/*; do echo "$(cat $t/comm | tr ' ' '_') $(awk '{print $14, $15}' $t/stat)"; done; }
snap > $OD/proc-start.txt
sleep 20
snap > $OD/proc-end.txt
wait
