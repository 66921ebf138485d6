#!/bin/bash
cd /work/bench/gc
while pgrep -f "ci50" > /dev/null || pgrep -f "/tmp/ci50" > /dev/null; do sleep 5; done
while ! grep -aq "Total time" /work/logs/ci50.log; do sleep 5; done
sleep 5
# dirty pages while the window runs
( for i in $(seq 1 900); do echo "$(date +%T) $(grep -E '^(Dirty|Writeback):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"; sleep 1; done ) > meminfo-run4.txt &
M=$!
bash cell.sh /tmp/bjF /work/bench/gc/flush-1 16 300 1100 ""
bash cell.sh /tmp/bjF /work/bench/gc/flush-w1 1 120 600 ""
mkdir -p /work/bench/gc/lance16-flush && cd /work/bench/gc/lance16-flush && date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "/tmp/bjF/chaos-tests.jar:/tmp/bjF/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 120 --data-files-ahead 1100 --settle-seconds 65 --systems lance --out /work/bench/gc/lance16-flush/out > bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
kill $M
touch /work/bench/gc/run4.done
