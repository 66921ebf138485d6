#!/bin/bash
cd /work/bench/gc
bash cell.sh /tmp/bjN /work/bench/gc/new-1 16 300 1100 ""
bash cell.sh /tmp/bjN /work/bench/gc/new-w1 1 120 600 ""
bash cell.sh /tmp/bjN /work/bench/gc/new-2 16 300 1100 ""
mkdir -p /work/bench/gc/lance16 && cd /work/bench/gc/lance16 && date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "/tmp/bjN/chaos-tests.jar:/tmp/bjN/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 120 --data-files-ahead 1100 --settle-seconds 65 --systems lance --out /work/bench/gc/lance16/out > bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
touch /work/bench/gc/run3.done
