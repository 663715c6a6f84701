#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Measures, for every corpus model lowered by -remat-lower-to-gpu, the device
# bytes live while the model function runs (libRematCudaRuntime's window,
# its device copies of the arguments included) with each buffer freed after
# its last use and with the arena, next to the planned peak (the model's
# buffers by -remat-report-buffer-peak, each rounded up to 64 bytes as the
# lowering's default alignment requests it, above the device copies of its
# arguments as the runtime counts them), and the number of kernels of the
# model. Prints a Markdown table (docs/benchmarks.md).
#
# Usage: measure-corpus.sh [MODEL...]   (default: all corpus models)
# Environment: as for run.sh; EMULATE=1 measures without a GPU
# (libRematCudaEmulation counts the same bytes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../../Corpus/Inputs
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mlp cnn resnet unet siamese)
# shellcheck source=../run-common.sh
source "$here/../run-common.sh"
remat_find_opt measure-corpus.sh || exit 2

kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
window_peak() { sed -n 's/^device_window_peak_bytes=\([0-9]*\).*/\1/p' "$1"; }
window_base() { sed -n 's/.*device_window_base_bytes=\([0-9]*\).*/\1/p' "$1"; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Runs run.sh with its stderr in $1; when it fails, says which model and
# why (run.sh names the cause: no GPU, no CUDA toolkit...) instead of
# exiting silently.
run_logged() {
  local log=$1; shift
  "$@" > /dev/null 2> "$log" && return 0
  local rc=$?
  echo "measure-corpus.sh: $m failed (exit $rc): $(tail -n 3 "$log" | tr '\n' ' ')" >&2
  exit "$rc"
}
echo "| model | kernels | planned peak | device peak, plan-buffers | device peak, arena |"
echo "| --- | ---: | ---: | ---: | ---: |"
for m in "${models[@]}"; do
  KEEP_TMP=$tmp/$m BUFFERS=early run_logged "$tmp/$m.early.err" \
    "$here/run.sh" "$inputs/$m.mlir"
  BUFFERS=arena run_logged "$tmp/$m.arena.err" "$here/run.sh" "$inputs/$m.mlir"
  # The model's buffers above its arguments (the remark of the function
  # with arguments), on top of the device copies of the arguments as the
  # runtime counts them (the window's base).
  buffers=$("$opt" "$tmp/$m/main.mlir" \
    --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map buffer-alignment=64" \
    -remat-plan-buffers -remat-report-buffer-peak -o /dev/null 2>&1 |
    sed -n 's/.*buffers peak at \([0-9]*\) bytes; arguments [1-9][0-9]* bytes.*/\1/p' |
    head -n 1)
  planned=$(( buffers + $(window_base "$tmp/$m.early.err") ))
  COMPILE_ONLY=1 FORMAT=isa EMULATE= KEEP_TMP=$tmp/$m.isa "$here/run.sh" "$inputs/$m.mlir"
  kernels=$(grep -c "^.visible .entry ${m}_kernel" "$tmp/$m.isa/main.ptx" || true)
  echo "| \`$m\` | $kernels | $(kib "$planned")" \
       "| $(kib "$(window_peak "$tmp/$m.early.err")")" \
       "| $(kib "$(window_peak "$tmp/$m.arena.err")") |"
done
