#!/bin/bash
# jfr.sh JARDIR OUTDIR : 16w appends local cell; JFR (profile settings) for 15 s of the window
JD=$1; OD=$2
cd /work/bench/gc
while [ ! -f run.done ]; do sleep 5; done
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 300 --data-files-ahead 1100 --coordinator-own-jvm true --systems coordinator \
  --settle-seconds 65 --coordinator-jvm-options "-Xlog:gc:file=$OD/gc.log:time" --out $OD/out > $OD/bench.log 2>&1 &
B=$!
while ! grep -aq "settling" bench.log; do sleep 1; done
n=$(grep -ac "running coordinator" bench.log)
while [ $(grep -ac "running coordinator" bench.log) -le $n ]; do sleep 0.2; done
date +"window %T" >> times.txt
sleep 5
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
jcmd $PID JFR.start name=w duration=15s settings=profile filename=$OD/window.jfr > jfr.log 2>&1
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
touch $OD/done
