#!/bin/bash
# /work/bench/gc/cell.sh is ../gc-and-fragment-list-copies/cell.sh
cd /work/bench/p99
./perf.sh /tmp/bjA /work/bench/p99/w16ev-2200 16 60 2200 events
bash /work/bench/gc/cell.sh /tmp/bjA /work/bench/p99/w16-2200 16 300 2200 ""
touch /work/bench/p99/ahead.done
