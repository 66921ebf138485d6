#!/bin/bash
while [ ! -f /work/bench/ab5.done ]; do sleep 5; done
O=/work/bench/ab3/directonly-ahead-1800; mkdir -p $O; cd $O
date +"start %T" >> times.txt
java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "/tmp/bjD/chaos-tests.jar:/tmp/bjD/lib/*" dev.lancecommit.chaos.bench.CommitBenchmark \
  --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 300 --data-files-ahead 1800 --coordinator-own-jvm true \
  --settle-seconds 65 --systems coordinator --out $O/out > $O/bench.log 2>&1
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
echo done > /work/bench/ab6.done
O=/work/bench/ab3/directonly-profile; mkdir -p $O; cd $O
J="java --add-opens=java.base/java.nio=ALL-UNNAMED -cp /tmp/bjD/chaos-tests.jar:/tmp/bjD/lib/* dev.lancecommit.chaos.bench.CommitBenchmark"
date +"start %T" >> times.txt
$J --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 300 --data-files-ahead 1800 --coordinator-own-jvm true --systems coordinator --settle-seconds 65 \
  --coordinator-jvm-options "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" --out $O/out > $O/bench.log 2>&1 &
B=$!
while [ $(grep -ac "running coordinator" bench.log) -lt 11 ]; do sleep 1; done
sleep 8
PID=$(pgrep -f "dev.lancecommit.coordinator.Main" | head -1)
date +"perf %T" >> times.txt
perf record -F 499 -g -p $PID -o perf.data -- sleep 15 > perf.log 2>&1
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
perf script -F comm,tid,ip,sym,dso -i perf.data > script.txt 2>/dev/null; python3 /work/bench/lanesys.py script.txt > lanesys.txt 2>&1
echo done > /work/bench/ab7.done
