#!/usr/bin/env bash
# Runs a corpus model (or what remat-opt made of it) on the CPU through
# `remat-opt --remat-lower-to-cpu` and libRematRuntime, and reports the
# memory the runtime measured.
#
# Usage: run.sh MODEL.mlir [HARNESS.mlir]
# stdout: the loss and gradients the harness prints (as run_model.sh).
# stderr: `window_peak_bytes=P window_base_bytes=B`: P is the peak of the
#         bytes live while the model function runs, B the bytes live when it
#         is called (its arguments, built by the harness); then, at exit,
#         `peak_bytes=N`, the peak of the whole program (harness included).
# Environment:
#   BUFFERS     early (default), arena or upstream: the `buffers` option of
#               -remat-lower-to-cpu
#   ALIGNMENT   its `alignment` option (default 64; 1 counts exact bytes)
#   REMAT_OPT   default: remat-opt next to this build's libRematRuntime, or
#               on PATH
#   REMAT_RUNTIME  path of libRematRuntime.so (default: ../lib of REMAT_OPT)
#   KEEP_TMP=DIR  keep main.mlir and main.llvm.mlir in DIR
#   MLIR_RUNNER, RUNNER_FLAGS: as for test/Corpus/run_model.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../../Corpus
model=${1:?usage: run.sh MODEL.mlir [HARNESS.mlir]}
harness=${2:-}
if [ -z "$harness" ]; then
  harness=${model%.mlir}.harness.mlir
  if [ ! -f "$harness" ]; then
    base=$(basename "$model"); base=${base%%.*}
    harness=$corpus/Inputs/$base.harness.mlir
  fi
fi
[ -f "$harness" ] || { echo "run.sh: no harness $harness" >&2; exit 2; }

opt=${REMAT_OPT:-$(command -v remat-opt)}
runtime=${REMAT_RUNTIME:-$(dirname "$(readlink -f "$opt")")/../lib/libRematRuntime.so}
[ -f "$runtime" ] || { echo "run.sh: no runtime $runtime" >&2; exit 2; }
runner=${MLIR_RUNNER:-$(command -v mlir-runner || echo /usr/lib/llvm-22/bin/mlir-runner)}
llvm_lib=$(dirname "$(readlink -f "$runner")")/../lib

if [ -n "${KEEP_TMP:-}" ]; then
  tmp=$KEEP_TMP; mkdir -p "$tmp"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fi

# The model without the `module { ... }` remat-opt prints around it (as in
# run_model.sh), then the harness.
awk '
  { line[NR] = $0 }
  !open && /^module([ \t].*)?\{[ \t]*$/ { open = NR }
  END {
    close_at = 0
    if (open) for (i = NR; i > open; i--) if (line[i] ~ /^\}[ \t]*$/) { close_at = i; break }
    for (i = 1; i <= NR; i++) if (i != open && i != close_at) print line[i]
  }' "$model" > "$tmp/main.mlir"

# Measurement window: reset the runtime's peak right before the harness
# calls the model and print it right after.
callee=$(grep -o 'func\.call @[A-Za-z0-9_]*(' "$harness" |
         grep -v '@printMemref' | head -n 1 | sed 's/func\.call @//; s/(//')
[ -n "$callee" ] || { echo "run.sh: no model call in $harness" >&2; exit 2; }
{
  echo 'func.func private @remat_reset_peak()'
  echo 'func.func private @remat_print_peak()'
  # The call may continue on the next lines; it ends with its `-> (...)`.
  awk -v callee="$callee" '
    index($0, "func.call @" callee "(") {
      print "  func.call @remat_reset_peak() : () -> ()"
      pending = 1
    }
    { print }
    pending && /->/ { print "  func.call @remat_print_peak() : () -> ()"; pending = 0 }
  ' "$harness"
} >> "$tmp/main.mlir"

"$opt" "$tmp/main.mlir" \
  "--remat-lower-to-cpu=buffers=${BUFFERS:-early} alignment=${ALIGNMENT:-64}" \
  -o "$tmp/main.llvm.mlir"
# shellcheck disable=SC2086
REMAT_REPORT_PEAK=1 "$runner" "$tmp/main.llvm.mlir" -e main \
  -entry-point-result=void \
  -shared-libs="$runtime,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so" \
  ${RUNNER_FLAGS:-}
echo
