#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Measures, for every corpus model, the peak bytes libRematRuntime sees while
# the model function runs (its arguments included), lowered with upstream's
# deallocation, with -remat-plan-buffers, and with the arena; and the arena
# size next to the sum of the buffers it holds. Prints a Markdown table
# (docs/benchmarks.md).
#
# Usage: measure-corpus.sh [MODEL...]   (default: all corpus models)
# Environment: ALIGNMENT (default 64), REMAT_OPT, as for run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inputs=$here/../../Corpus/Inputs
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mlp cnn resnet unet siamese)

window_peak() { sed -n 's/^window_peak_bytes=\([0-9]*\).*/\1/p' "$1"; }
window_base() { sed -n 's/.*window_base_bytes=\([0-9]*\).*/\1/p' "$1"; }
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "| model | arguments | upstream dealloc | plan-buffers | arena mode | arena | most live at once | sum of its buffers |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in "${models[@]}"; do
  for mode in upstream early arena; do
    BUFFERS=$mode "$here/run.sh" "$inputs/$m.mlir" > /dev/null 2> "$tmp/$mode.err"
  done
  # "arena of N bytes for M buffers (sum S bytes); at most L bytes live ..."
  arena=$(grep -o 'arena of .* written in place' "$tmp/arena.err" | head -n 1)
  size=$(echo "$arena" | awk '{ print $3 }')
  sum=$(echo "$arena" | sed 's/.*(sum \([0-9]*\) bytes).*/\1/')
  most=$(echo "$arena" | sed 's/.*at most \([0-9]*\) bytes.*/\1/')
  echo "| \`$m\` | $(kib "$(window_base "$tmp/early.err")")" \
       "| $(kib "$(window_peak "$tmp/upstream.err")")" \
       "| $(kib "$(window_peak "$tmp/early.err")")" \
       "| $(kib "$(window_peak "$tmp/arena.err")")" \
       "| $(kib "$size") | $(kib "$most") | $(kib "$sum") |"
done
