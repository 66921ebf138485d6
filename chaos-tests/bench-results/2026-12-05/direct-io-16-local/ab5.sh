#!/bin/bash
while [ ! -f /work/bench/ab4.done ]; do sleep 5; done
O=/work/bench/ab3/direct-1-writer; mkdir -p $O; cd $O
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "/tmp/bjD/chaos-tests.jar:/tmp/bjD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 1 --seconds 30 --warmup-seconds 120 --data-files-ahead 600 --coordinator-own-jvm true \
  --settle-seconds 65 --systems coordinator --out $O/out > $O/bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
echo done > /work/bench/ab5.done
