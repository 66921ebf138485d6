#!/bin/bash
cd /work/bench/s46/jmh
for v in bj3b bj3; do
  java -cp "/tmp/$v/chaos-tests.jar:/tmp/$v/lib/*" org.openjdk.jmh.Main GroupBuildBenchmark -p operation=update-shared -prof gc -rf json -rff $v.json > $v.log 2>&1
done
echo done > done.txt
