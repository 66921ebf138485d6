#!/bin/bash
while [ ! -f /work/bench/ab3.done ]; do sleep 5; done
run() { # jars out systems warmup
  mkdir -p $2; cd $2
  date +"start %T" >> times.txt
  java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$1/chaos-tests.jar:$1/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
    --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds $4 --data-files-ahead 1100 --coordinator-own-jvm true \
    --settle-seconds 65 --systems $3 --out $2/out > $2/bench.log 2>&1
  echo "rc $?" >> times.txt; date +"end %T" >> times.txt
  rm -rf /tmp/lcc-bench-*
}
B=/work/bench/ab3
run /tmp/bjD $B/directonly-3 coordinator 300
run /tmp/bjA2 $B/buffered-3 coordinator 300
run /tmp/bjD $B/directonly-4 coordinator 300
run /tmp/bjA2 $B/buffered-4 coordinator 300
echo done > /work/bench/ab4.done
