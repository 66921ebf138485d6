#!/bin/bash
cd /work/bench/gc
while [ ! -f run4.done ]; do sleep 3; done
bash cell.sh /tmp/bjF /work/bench/gc/flush-2 16 300 1100 ""
touch /work/bench/gc/run5.done
