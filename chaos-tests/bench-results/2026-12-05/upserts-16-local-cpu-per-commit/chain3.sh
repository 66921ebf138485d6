#!/bin/bash
/work/bench/nofsync/ups.sh /tmp/bjJ /work/bench/nofsync/coord-fsync-3 coordinator 300 2200
touch /work/bench/nofsync/chain3.done
