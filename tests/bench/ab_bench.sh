#!/bin/bash
# A/B latency of two jitctl binaries or two settings of one, side by side: for each model, three
# interleaved rounds of `jitctl bench-threads` (A then B), each printing its p50 in microseconds.
# Interleaving is what makes a 2-3% difference readable on this shared machine, where a model's
# time drifts by more than that over minutes.
#
#   tests/bench/ab_bench.sh "ENV_A" BIN_A "ENV_B" BIN_B THREADS ITERS MODEL...
#
# ENV_*: VAR=value settings for that side ("X=1" for none); MODEL: an archive path without .pt,
# its inputs in MODEL.in0.pt (tests/bench/make_speed_models.py writes both). Example, Winograd
# off against on, one thread:
#   tests/bench/ab_bench.sh "JITCTL_WINOGRAD=0" build/cli/jitctl "JITCTL_WINOGRAD=1" build/cli/jitctl \
#       1 200 /tmp/jitctl-speed/resnet18
set -euo pipefail
ea=$1; a=$2; eb=$3; b=$4; threads=$5; iters=$6; shift 6
p50() {
  env $1 "$2" bench-threads "$3.pt" --inputs "$3.in0.pt" --threads "$threads" --iters "$iters" --format json 2>/dev/null |
    /usr/bin/python3 -c 'import json, sys; print(round(json.load(sys.stdin)["rows"][0]["latency_ms"]["p50"] * 1000, 1))'
}
for m in "$@"; do
  line="$(basename "$m") t$threads:"
  for _ in 1 2 3; do
    line="$line A=$(p50 "$ea" "$a" "$m") B=$(p50 "$eb" "$b" "$m")"
  done
  echo "$line"
done
