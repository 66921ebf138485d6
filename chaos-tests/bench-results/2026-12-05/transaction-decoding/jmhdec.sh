#!/bin/bash
# jmhdec.sh NAME : builds chaos-tests and runs TransactionDecodingBenchmark into /work/bench/s48/decode-NAME.json/.txt
cd /work/main && rm -rf chaos-tests/target/lib && mvn -B -q -o -pl chaos-tests -am package -DskipTests -Djacoco.skip=true 2>&1 | tail -5
rm -rf /tmp/bjd; mkdir /tmp/bjd; cp chaos-tests/target/chaos-tests.jar /tmp/bjd/; cp -r chaos-tests/target/lib /tmp/bjd/lib
cd /tmp/bjd && java -cp "/tmp/bjd/chaos-tests.jar:/tmp/bjd/lib/*" org.openjdk.jmh.Main TransactionDecodingBenchmark -prof gc -rf json -rff /work/bench/s48/decode-$1.json > /work/bench/s48/decode-$1.txt 2>&1
grep -E "^TransactionDecodingBenchmark\.(decode|misencodedFields) |gc.alloc.rate.norm " /work/bench/s48/decode-$1.txt | grep -v "·"
