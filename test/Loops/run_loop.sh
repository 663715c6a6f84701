#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs a loop-form (or unrolled) model of gen_loops.py on the CPU with
# upstream MLIR 22 and prints its loss and gradients (printMemrefF32).
#
# Usage: run_loop.sh MODEL.mlir HARNESS.mlir
# The pipeline is test/Corpus/run_model.sh's with one more One-Shot Bufferize
# option, `allow-return-allocs-from-loops`.  Without it, bufferizing a loop
# whose iter_arg is replaced by a new tensor each iteration (h' = tanh(h W),
# or the gradient gw' = gw + contribution) fails with "Yield operand #0 is not
# equivalent to the corresponding iter bbArg"; with it, the yielded value is
# a new buffer per iteration and `--buffer-deallocation-pipeline`
# (ownership-based) frees the previous one.
# Environment: MLIR_OPT, MLIR_RUNNER, RUNNER_LIBS, RUNNER_FLAGS, KEEP_TMP as
# in run_model.sh.
set -euo pipefail
# shellcheck source=../Integration/run-common.sh
source "$(dirname "$0")/../Integration/run-common.sh"

llvm_bin=/usr/lib/llvm-22/bin
tool() { command -v "$1" 2>/dev/null || echo "$llvm_bin/$1"; }
model=${1:?usage: run_loop.sh MODEL.mlir HARNESS.mlir}
harness=${2:?usage: run_loop.sh MODEL.mlir HARNESS.mlir}
opt=${MLIR_OPT:-$(tool mlir-opt)}
runner=${MLIR_RUNNER:-$(tool mlir-runner)}
libdir=$(dirname "$(readlink -f "$runner")")/../lib
libs=${RUNNER_LIBS:-$libdir/libmlir_c_runner_utils.so,$libdir/libmlir_runner_utils.so}

passes=(
  "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops"
  --buffer-deallocation-pipeline --convert-bufferization-to-memref
  --convert-linalg-to-loops --expand-strided-metadata --lower-affine
  --convert-scf-to-cf --convert-math-to-llvm --finalize-memref-to-llvm
  --convert-func-to-llvm --convert-arith-to-llvm --convert-index-to-llvm
  --convert-cf-to-llvm --reconcile-unrealized-casts)

remat_make_tmp
remat_strip_module "$model" > "$tmp/main.mlir"
cat "$harness" >> "$tmp/main.mlir"
"$opt" "$tmp/main.mlir" "${passes[@]}" -o "$tmp/main.llvm.mlir"
# shellcheck disable=SC2086
"$runner" "$tmp/main.llvm.mlir" -e main -entry-point-result=void \
  -shared-libs="$libs" ${RUNNER_FLAGS:-}
echo
