#!/bin/bash
/work/bench/ups16.sh /tmp/bj /work/bench/ups-l2 "lance update" 0 120 1100
/work/bench/ups16.sh /tmp/bj /work/bench/ups-c2 coordinator 0 300 1100
touch /work/bench/ups-pair2.done
