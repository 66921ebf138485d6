#!/bin/bash
/work/bench/ups16.sh /tmp/bjN /work/bench/ups-l3 "lance update" 0 120 2200
/work/bench/ups16.sh /tmp/bjN /work/bench/ups-c3 coordinator 0 300 2200
touch /work/bench/ups-pair3.done
