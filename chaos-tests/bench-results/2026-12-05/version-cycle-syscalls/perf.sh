#!/bin/bash
# perf.sh JARDIR OUTDIR WRITERS WARMUP AHEAD summary|events : the appends cell on a local disk, its coordinator's
# file calls traced by `perf trace` in the window: summary, per thread, over 15 s (perf-trace.txt); events, every call
# over 2 s (perf-events.txt; join.py, timeline.py and creates.py read it)
JD=$1; OD=$2; W=$3; WU=$4; AH=$5; MODE=$6
mkdir -p $OD; cd $OD
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$JD/chaos-tests.jar:$JD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers $W --seconds 30 --warmup-seconds $WU --data-files-ahead $AH --coordinator-own-jvm true --systems coordinator \
  --settle-seconds 65 --coordinator-jvm-options "-Xlog:gc:file=$OD/gc.log:time" --out $OD/out > $OD/bench.log 2>&1 &
B=$!
while ! grep -aq "settling" bench.log; do sleep 1; done
n=$(grep -ac "running coordinator" bench.log)
while [ $(grep -ac "running coordinator" bench.log) -le $n ]; do sleep 0.2; done
date +"window %T" >> times.txt
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
cat /proc/diskstats | grep " vda " > disk0.txt
if [ "$MODE" = summary ]; then
  sleep 5
  timeout -s INT 15 perf trace -s -p $PID -e fsync,fdatasync,linkat,link,pwrite64,write,openat,renameat,rename,renameat2,unlinkat,unlink -o perf-trace.txt > /dev/null 2>&1
else
  sleep 8
  timeout -s INT 2 perf trace -p $PID -e fsync,fdatasync,linkat,link,pwrite64,write,openat,renameat,rename,renameat2,unlinkat,unlink,ftruncate,fstat,newfstatat,statx,lstat,stat,mkdir,read,pread64 -o perf-events.txt > /dev/null 2>&1
fi
cat /proc/diskstats | grep " vda " > disk1.txt
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
touch done
