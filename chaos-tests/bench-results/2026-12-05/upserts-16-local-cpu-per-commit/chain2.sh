#!/bin/bash
while [ ! -f /work/bench/pyl/go1.done ]; do sleep 5; done
/work/bench/nofsync/ups.sh /tmp/bjP /work/bench/nofsync/lance-2 "lance update" 120 2200
/work/bench/nofsync/ups.sh /tmp/bjP /work/bench/nofsync/coord-nofsync-2 coordinator 300 2200 --local-fsync false
/work/bench/nofsync/ups.sh /tmp/bjP /work/bench/nofsync/coord-fsync-2 coordinator 300 2200
touch /work/bench/nofsync/chain2.done
