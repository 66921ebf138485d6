#!/bin/bash
cd /work/bench/free16
J="java --add-opens=java.base/java.nio=ALL-UNNAMED -cp /tmp/bj/chaos-tests.jar:/tmp/bj/lib/* dev.lancecommit.chaos.bench.CommitBenchmark"
date +"start %T" >> times.txt
$J --workloads appends --stores local --writers 16 --seconds 30 --warmup-seconds 300 --data-files-ahead 1100 --coordinator-own-jvm true --systems coordinator --out /work/bench/free16/out > /work/bench/free16/bench.log 2>&1 &
B=$!
while [ $(grep -ac "running coordinator" bench.log) -lt 11 ]; do sleep 1; done
sleep 8
date +"perf %T" >> times.txt
perf record -a -g -e ext4:ext4_free_inode -e ext4:ext4_allocate_inode -e syscalls:sys_enter_unlink -e syscalls:sys_enter_unlinkat -e syscalls:sys_enter_rename -e syscalls:sys_enter_renameat2 -o perf.data -- sleep 15 > perf.log 2>&1
wait $B
echo "rc $?" >> times.txt; date +"end %T" >> times.txt
rm -rf /tmp/lcc-bench-*
