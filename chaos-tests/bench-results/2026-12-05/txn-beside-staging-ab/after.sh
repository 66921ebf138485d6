#!/bin/bash
# /work/bench/gc/cell.sh is ../gc-and-fragment-list-copies/cell.sh
cd /work/bench/txnpar
while [ ! -f ab.done ]; do sleep 5; done
bash /work/bench/gc/cell.sh /tmp/bjB /work/bench/txnpar/B-w1 1 120 600 ""
mkdir -p L16; cd L16; date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "/tmp/bjB/chaos-tests.jar:/tmp/bjB/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 120 --data-files-ahead 1100 --settle-seconds 65 --systems lance --out /work/bench/txnpar/L16/out > bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
touch /work/bench/txnpar/after.done
