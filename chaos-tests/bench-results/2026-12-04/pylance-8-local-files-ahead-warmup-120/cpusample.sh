#!/bin/bash
for i in $(seq 1 250); do
  ps -eo pid,times,args --no-headers | grep -E "java|python" | grep -v grep | awk -v t=$(date +%H:%M:%S) '{a=$3; for(i=4;i<=NF;i++) a=a" "$i; if (a ~ /BenchCoordinator|CoordinatorMain|coordinator/) k="coord"; else if (a ~ /python/) k="python"; else k="bench"; print t, $1, k, $2}'
  sleep 3
done
