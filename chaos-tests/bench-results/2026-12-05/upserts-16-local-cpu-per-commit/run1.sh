#!/bin/bash
/work/bench/nofsync/ups.sh /tmp/bjA /work/bench/nofsync/coord-nofsync coordinator 300 2200 --local-fsync false
touch /work/bench/nofsync/run1.done
