#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Generates variant SEED of gen_scan_variants.py into DIR and checks it
# (variants.test):
#  1. prints its choices;
#  2. remat-opt --remat-budget=20% checkpoints its scan: the remarks (a loop
#     left opaque says "loop not checkpointed: <why>");
#  3. check_remat.py at 50 % and 20 % (the -remat-fit pipeline): on the CPU
#     the outputs are the original's and the measured peaks the predicted
#     ones, to the byte; a variant whose loss reads the stack of h whole
#     (whole=loss) cannot go below that stack: at 98 % and at the smallest
#     budget (min) instead;
#  4. at T = 6, the loop form and the unrolled twin print the same bits
#     (run_loop.sh, upstream MLIR): the variant's index arithmetic reads the
#     rows its forward loop wrote;
#  5. check_scan_twins.py: the loop form and its unrolled twin meet the same
#     smallest budget, within one carry + 128 B (whole=loss: the loop form
#     at most that above its twin, which keeps every row for its loss).
# Each command is echoed ("$ ...") before it runs; the first that fails
# stops the script with its status.
# Usage: check_scan_variant.sh SEED DIR [CHOICE...]   (remat-opt, mlir-opt
# on PATH; CHOICE: gen_scan_variants.py options that override the seed's
# draws, e.g. --axis flat)
set -euo pipefail
seed=${1:?usage: check_scan_variant.sh SEED DIR [CHOICE...]}
dir=${2:?usage: check_scan_variant.sh SEED DIR [CHOICE...]}
shift 2
given=("$@")
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
gen="$here/gen_scan_variants.py"
v="$dir/v$seed"

run() {
  echo "\$ $*"
  "$@"
}

"$py" "$gen" --seed "$seed" "${given[@]}" --choices
budgets=(50% 20%)
twins=()
if "$py" "$gen" --seed "$seed" "${given[@]}" --choices | grep -q "whole=loss"; then
  budgets=(98% min)
  twins=(--at-most)
fi
run "$py" "$gen" --seed "$seed" "${given[@]}" -o "$v.mlir"
run "$py" "$gen" --seed "$seed" "${given[@]}" --harness -o "$v.harness.mlir"
run "$py" "$gen" --seed "$seed" "${given[@]}" --form unrolled -o "$v.unrolled.mlir"

run remat-opt "$v.mlir" --remat-budget="${budgets[1]}" -o "$v.20.mlir" 2> "$v.20.err"
# A loop stacking nothing (whole=loss by=loop's loss, summed row by row) is
# named too; it is no scan missed.
grep -E "remark:|error:" "$v.20.err" | grep -v "it stacks no per-iteration value"

run "$py" "$here/../Integration/CPU/check_remat.py" "$v.mlir" --budgets "${budgets[@]}" \
  --pipeline fit --exact

run "$py" "$gen" --seed "$seed" "${given[@]}" --steps 6 -o "$v.t6.mlir"
run "$py" "$gen" --seed "$seed" "${given[@]}" --steps 6 --form unrolled -o "$v.t6.unrolled.mlir"
run "$py" "$gen" --seed "$seed" "${given[@]}" --steps 6 --harness --bits -o "$v.t6.bits.mlir"
for form in loop unrolled; do
  m="$v.t6.mlir"
  [ "$form" = loop ] || m="$v.t6.unrolled.mlir"
  echo "\$ bash $here/run_loop.sh $m $v.t6.bits.mlir > $v.t6.$form.out"
  bash "$here/run_loop.sh" "$m" "$v.t6.bits.mlir" |
    sed -e 's/base@ = 0x[0-9a-f]*//' > "$v.t6.$form.out"
done
run diff "$v.t6.loop.out" "$v.t6.unrolled.out"
echo "bits: seed $seed at T=6: loop form and unrolled twin print the same" \
  "$(grep -c 'Unranked Memref' "$v.t6.loop.out") results"

run "$py" "$here/check_scan_twins.py" "${twins[@]}" "$v.mlir" "$v.unrolled.mlir"
