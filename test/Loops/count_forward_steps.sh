#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Counts the forward steps a loop program executes on the CPU: every
# math.sin (the step of test/Loops/Inputs/sin_while.mlir) gets a call of
# printComma after it, and each of the harness's calls prints one line
# "steps=N" followed by its outputs.
#
# Usage: count_forward_steps.sh MODEL.mlir HARNESS.mlir [remat-opt flags...]
# The model goes through remat-opt with the flags (its remarks on stderr),
# then runs with run_loop.sh.
set -euo pipefail
model=${1:?usage: count_forward_steps.sh MODEL HARNESS [flags...]}
harness=${2:?usage: count_forward_steps.sh MODEL HARNESS [flags...]}
shift 2
llvm_bin=/usr/lib/llvm-22/bin
opt=${MLIR_OPT:-$(command -v mlir-opt 2>/dev/null || echo "$llvm_bin/mlir-opt")}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
remat-opt "$model" "$@" > "$tmp/rewritten.mlir"
sed -E -e 's/^( *)(%[^ ]+ = math\.sin .*)$/\1\2\n\1func.call @printComma() : () -> ()/' \
    -e 's/^module \{$/module {\n  func.func private @printComma()/' "$tmp/rewritten.mlir" |
  "$opt" --convert-elementwise-to-linalg > "$tmp/counted.mlir"
bash "$(dirname "$0")/run_loop.sh" "$tmp/counted.mlir" "$harness" |
  sed -e 's/base@ = 0x[0-9a-f]*//' |
  awk '/^(, )+$/ { print "steps=" gsub(/,/, ","); next } { print }'
