#!/bin/bash
cd /work/bench/s46/jmh
java -cp "/tmp/bj5/chaos-tests.jar:/tmp/bj5/lib/*" org.openjdk.jmh.Main GroupBuildBenchmark -p operation=update -prof gc -rf json -rff bj5.json > bj5.log 2>&1
bash /work/bench/s46/ups.sh /tmp/bj5 /work/bench/s46/lance-update "lance update" 120 2200
bash /work/bench/s46/ups.sh /tmp/bj5 /work/bench/s46/ups-final coordinator 300 2200
echo done > done3.txt
