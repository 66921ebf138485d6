#!/bin/bash
/work/bench/pyl/run.sh /tmp/bjP /work/bench/pyl/p1 300 "namespace appends_on_latest,path (pylance)"
touch /work/bench/pyl/go1.done
