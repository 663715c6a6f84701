#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The README's example: fit a ResNet-like training step into 60 % of its
# memory, run it before and after on the CPU, and compare.
set -euo pipefail
build=${1:-build}
export PATH="$PWD/$build/bin:/usr/lib/llvm-22/bin:$PATH"
step=examples/resnet-train-step.mlir
harness=examples/resnet-train-step.harness.mlir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== 1. The training step ($step): peak without rematerialization"
remat-opt "$step" -remat-prepare -remat-test-timeline=quiet 2>&1 | grep -o 'peak .*'

echo
echo "== 2. remat-opt --remat-budget=60% (report in $tmp/report.json)"
remat-opt "$step" --remat-budget=60% --remat-report="$tmp/report.json" \
  -o "$tmp/step.remat.mlir"
/usr/bin/python3 - "$tmp/report.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["functions"][0]
kept = sum(1 for v in f["values"] if v["decision"] == "kept" and v["bytes"])
rec = [v for v in f["values"] if v["decision"] == "recomputed"]
print("   strategy %s: predicted peak %d -> %d B (budget %d B), "
      "recompute overhead %.1f%%" % (f["strategy"], f["peak_before"],
      f["peak_after"], f["budget"], f["overhead_percent"]))
print("   %d forward values kept, %d recomputed (%d B)" % (
      kept, len(rec), sum(v["bytes"] for v in rec)))
PY
echo "   recomputation regions in the output: $(grep -c 'remat.recompute' "$tmp/step.remat.mlir")"

echo
echo "== 3. Both versions lowered to CPU (-remat-lower-to-cpu) and run"
for v in original rematerialized; do
  file=$step; [ $v = rematerialized ] && file=$tmp/step.remat.mlir
  # Default options: the lowering allocates what the planner counted.
  test/Integration/CPU/run.sh "$file" "$harness" \
    > "$tmp/$v.out" 2> "$tmp/$v.err"
  echo "   $v: measured peak of the step $(grep -o 'window_peak_bytes=[0-9]*' "$tmp/$v.err" | cut -d= -f2) B"
done
if diff <(sed 's/base@ = 0x[0-9a-f]*//' "$tmp/original.out") \
        <(sed 's/base@ = 0x[0-9a-f]*//' "$tmp/rematerialized.out") > /dev/null; then
  echo "   loss and gradients: identical"
else
  echo "   loss and gradients: DIFFERENT" >&2
  exit 1
fi
echo "   loss: $(sed -n 2p "$tmp/original.out")"

echo
echo "== 4. remat-plan on rotor's toy chain (examples/rotor-toy-chain.json, 90 MB)"
remat-plan --budget=90MB examples/rotor-toy-chain.json | head -c 300
echo " ..."
