#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Usage: check_layered_spellings.sh PYTHON TMPDIR [GEN_OPTIONS...]
# Writes gen_layered_scan.py's step with GEN_OPTIONS (T = 6, B = 4, W = 8),
# its unrolled twin (gen_nested_scan.py) and the step as
# -remat-normalize-input leaves it; runs the three on the CPU (run.sh) and
# prints one line: the outer stacks left after normalizing, the time loops,
# and whether all three print the same bits (exits 1 when not).
set -euo pipefail
py=$1 dir=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../Integration/CPU/run.sh
layers=2
args=("$@")
for ((k = 0; k < ${#args[@]}; ++k)); do
  [ "${args[k]}" = --layers ] && layers=${args[k + 1]}
done
shape=(-T 6 -B 4 -W 8)
"$py" "$here/gen_layered_scan.py" "${shape[@]}" "$@" -o "$dir/v.mlir"
"$py" "$here/gen_nested_scan.py" --layers "$layers" --steps 6 --batch 4 --width 8 --harness -o "$dir/v.harness.mlir"
"$py" "$here/gen_nested_scan.py" --layers "$layers" --steps 6 --batch 4 --width 8 --form unrolled -o "$dir/u.mlir"
cp "$dir/v.harness.mlir" "$dir/u.harness.mlir"
cp "$dir/v.harness.mlir" "$dir/n.harness.mlir"
remat-opt "$dir/v.mlir" --remat-normalize-input -o "$dir/n.mlir"
for m in v n u; do
  "$run" "$dir/$m.mlir" 2> /dev/null | sed 's/base@ = 0x[0-9a-f]*//' > "$dir/$m.out"
done
# The outer stacks: [L, T(+1), B, W] or [T(+1), B, W, L].
outer=$(grep -c -E "tensor<$layers""x[67]x4x8xf32>|tensor<[67]x4x8x$layers""xf32>" "$dir/n.mlir" || true)
same=different
cmp -s "$dir/v.out" "$dir/n.out" && cmp -s "$dir/v.out" "$dir/u.out" && same="same bits"
echo "$*: layers $layers, outer stacks left $outer, time loops $(grep -c scf.for "$dir/n.mlir"), $same"
[ "$same" = "same bits" ]
