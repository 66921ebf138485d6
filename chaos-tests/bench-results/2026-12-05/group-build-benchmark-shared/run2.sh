#!/bin/bash
cd /work/bench/s46/jmh
java -cp "/tmp/bj4/chaos-tests.jar:/tmp/bj4/lib/*" org.openjdk.jmh.Main GroupBuildBenchmark -p operation=update,update-shared -prof gc -rf json -rff bj4.json > bj4.log 2>&1
bash /work/bench/s46/ups.sh /tmp/bj4 /work/bench/s46/ups-lazy coordinator 300 2200
echo done > done2.txt
