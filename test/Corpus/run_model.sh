#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs one corpus model on the CPU and prints its loss and gradients.
#
# Usage: run_model.sh MODEL.mlir [HARNESS.mlir]
#   MODEL.mlir    the model function (a corpus file, or what remat-opt made of
#                 it; a `module { ... }` wrapper is stripped)
#   HARNESS.mlir  its @main; default: MODEL.harness.mlir next to the model,
#                 else Inputs/<name>.harness.mlir where <name> is the model's
#                 file name up to the first dot.
# The two are concatenated into one module, lowered and run with mlir-runner.
# Environment:
#   MLIR_OPT       tool that lowers (default: mlir-opt on PATH, else LLVM 22's)
#   LOWER_PASSES   passes to use instead of the upstream pipeline below, e.g.
#                  "-remat-inline-recompute -remat-lower-to-cpu" with
#                  MLIR_OPT=remat-opt for a rematerialized model
#   MLIR_RUNNER    default: mlir-runner on PATH, else LLVM 22's
#   RUNNER_LIBS    comma-separated shared libraries (default: the two runner
#                  utility libraries next to mlir-runner)
#   RUNNER_FLAGS   extra mlir-runner flags
#   KEEP_TMP=DIR   keep the merged and lowered files in DIR
set -euo pipefail
# shellcheck source=../Integration/run-common.sh
source "$(dirname "$0")/../Integration/run-common.sh"

llvm_bin=/usr/lib/llvm-22/bin
tool() { command -v "$1" 2>/dev/null || echo "$llvm_bin/$1"; }

model=${1:?usage: run_model.sh MODEL.mlir [HARNESS.mlir]}
harness=${2:-}
if [ -z "$harness" ]; then
  harness=${model%.mlir}.harness.mlir
  if [ ! -f "$harness" ]; then
    base=$(basename "$model"); base=${base%%.*}
    harness=$(dirname "$0")/Inputs/$base.harness.mlir
  fi
fi
[ -f "$harness" ] || { echo "run_model.sh: no harness $harness" >&2; exit 2; }

opt=${MLIR_OPT:-$(tool mlir-opt)}
runner=${MLIR_RUNNER:-$(tool mlir-runner)}
libdir=$(dirname "$(readlink -f "$runner")")/../lib
libs=${RUNNER_LIBS:-$libdir/libmlir_c_runner_utils.so,$libdir/libmlir_runner_utils.so}

# One-Shot Bufferize across function boundaries (identity layouts, so the
# harness and the model agree on memref types), upstream deallocation, then
# loops and the LLVM dialect.
passes=(
  "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
  --buffer-deallocation-pipeline --convert-bufferization-to-memref
  --convert-linalg-to-loops --expand-strided-metadata --lower-affine
  --convert-scf-to-cf --convert-math-to-llvm --finalize-memref-to-llvm
  --convert-func-to-llvm --convert-arith-to-llvm --convert-index-to-llvm
  --convert-cf-to-llvm --reconcile-unrealized-casts)
if [ -n "${LOWER_PASSES:-}" ]; then
  read -r -a passes <<< "$LOWER_PASSES"
fi

remat_make_tmp
remat_strip_module "$model" > "$tmp/main.mlir"
cat "$harness" >> "$tmp/main.mlir"

"$opt" "$tmp/main.mlir" "${passes[@]}" -o "$tmp/main.llvm.mlir"
# shellcheck disable=SC2086
"$runner" "$tmp/main.llvm.mlir" -e main -entry-point-result=void \
  -shared-libs="$libs" ${RUNNER_FLAGS:-}
echo
