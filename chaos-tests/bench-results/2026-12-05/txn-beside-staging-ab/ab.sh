#!/bin/bash
# /work/bench/gc/cell.sh is ../gc-and-fragment-list-copies/cell.sh
cd /work/bench/txnpar
for p in 1 2 3; do
  bash /work/bench/gc/cell.sh /tmp/bjB /work/bench/txnpar/B$p 16 300 1100 ""
  bash /work/bench/gc/cell.sh /tmp/bjA /work/bench/txnpar/A$p 16 300 1100 ""
done
touch ab.done
