#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Draws an asynchronous 1F1B step from SEED (P stages 2-3, M micro-batches
# 1-5, L layers a stage 1-2, and gen_pipeline.py --variant SEED's spelling:
# the forward slot's branch inverted or not, the ring row and the partners'
# indexes as arith, affine or index ops) into DIR and checks it
# (1f1b-async-variants.test):
#  1. prints its choices;
#  2. at the smallest budget the layers' rings are dropped (the branch-form
#     stash rings are recognized whatever the spelling): the report says
#     `dropped N of L`, N >= 1, unless no ring lowers the peak (M = 1: the
#     smallest budget is then the step as written, which it says);
#  3. under RANKS=P, as written and at the smallest budget, every rank
#     prints the single twin's loss and gradient slice and measures its own
#     predicted peak (rank_peaks.py);
#  4. the report's critical path (pipeline_plans.py) is within its bounds.
# Each command is echoed ("$ ...") before it runs; the first that fails
# stops the script with its status.
# Usage: check_async_variant.sh SEED DIR   (remat-opt on PATH)
set -euo pipefail
seed=${1:?usage: check_async_variant.sh SEED DIR}
dir=${2:?usage: check_async_variant.sh SEED DIR}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
run_sh="$here/../Integration/CPU/run.sh"
v="$dir/v$seed"

run() {
  echo "\$ $*"
  "$@"
}

read -r P M L < <("$py" -c "import random; r = random.Random($seed); print(r.choice([2, 3]), r.randint(1, 5), r.choice([1, 2]))")
sizes=(--pipeline 1f1b-async --stages "$P" --microbatches "$M" --layers-per-stage "$L")
"$py" -c "import sys; sys.path.insert(0, '$here'); import gen_pipeline as g; print('seed $seed: P=$P M=$M L=$L', g.drawn_variant($seed))"
run "$py" "$here/gen_pipeline.py" "${sizes[@]}" --variant "$seed" -o "$v.mlir"
run "$py" "$here/gen_pipeline.py" "${sizes[@]}" --single -o "$v.single.mlir"
run "$run_sh" "$v.single.mlir" > "$v.single.out"
for budget in 100% min; do
  b=${budget%\%}
  run remat-opt "$v.mlir" --remat-budget="$budget" --remat-report="$v.$b.json" -o "$v.$b.mlir" 2> /dev/null
  cp "$v.harness.mlir" "$v.$b.harness.mlir"
  RANKS=$P run "$run_sh" "$v.$b.mlir" > "$v.$b.out" 2> "$v.$b.err"
  run "$py" "$here/compare_stages.py" "$v.single.out" "$v.$b.out" "$P"
  run "$py" "$here/rank_peaks.py" "$v.$b.json" "$v.$b.err"
done
"$py" -c "
import json, sys
f = json.load(open(sys.argv[1]))['functions'][0]
n = f.get('stash_rings_dropped', 0)
if n == 0 and f['peak_after'] == f['peak_before']:
    print('no ring lowers the peak: the smallest budget is the step as written')
else:
    print('dropped', n, 'of', sys.argv[2])" "$v.min.json" "$L"
# 4. The critical path replays whatever the spelling (pipeline_plans.py's
#    bounds: at least each rank's own ops, at most all of them).
run "$py" "$here/pipeline_plans.py" "$v.min.json"
