#!/bin/bash
/work/bench/pyl/run.sh /tmp/bjP /work/bench/pyl/p2 300 "path (pylance),namespace appends_on_latest"
touch /work/bench/pyl/go2.done
