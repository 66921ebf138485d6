#!/bin/bash
cd /work/bench/gc
for pair in 1 2; do
  bash cell.sh /tmp/bj /work/bench/gc/g1-$pair 16 300 1100 ""
  bash cell.sh /tmp/bj /work/bench/gc/zgc-$pair 16 300 1100 "-XX:+UseZGC"
done
touch /work/bench/gc/run.done
