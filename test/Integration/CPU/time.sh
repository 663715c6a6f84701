#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Times a step against its rematerialized version on the CPU, in one process:
# both are lowered together (-remat-lower-to-cpu) with a @main that builds
# the arguments once, warms up, then times RUNS calls of each, alternating
# (timing_main.py), and finally runs each once more to print its results.
#
# Usage: time.sh ORIGINAL.mlir REMAT.mlir [HARNESS.mlir]
#   HARNESS: found from ORIGINAL as run.sh finds it.
# stdout: `== original`, its loss and gradients, `== rematerialized`, its
#         loss and gradients, then `outputs: identical` (exit 0) or
#         `outputs: DIFFERENT` (exit 1; buffer addresses are not compared).
# stderr: `timer id=0 n=RUNS min_ns= p10_ns= median_ns= p90_ns= max_ns=
#         mad_ns=` (original), the same for id=1 (rematerialized),
#         `timer_ratio num=1 den=0 n= min= p10= median= p90= max= mad=` (the
#         per-pair time ratio rematerialized / original). Peaks: run.sh
#         (timing_main.py says why not here).
# Environment:
#   RANKS=N  a sharded step: run as N MPI processes (as run.sh RANKS=N);
#            stdout is rank 0's output then rank 1's..., stderr their
#            timer lines in rank order, each prefixed by nothing (the
#            ranks' timers follow each other: rank 0's first)
#   RUNS (default 10), WARMUP (default 2)
#   RUNNER_FLAGS  default -O3 (the JIT's optimization level)
#   BUFFERS, ALIGNMENT, REMAT_OPT, REMAT_RUNTIME, MLIR_RUNNER, KEEP_TMP: as
#   for run.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../run-common.sh
source "$here/../run-common.sh"
usage="usage: time.sh ORIGINAL.mlir REMAT.mlir [HARNESS.mlir]"
original=${1:?$usage}
remat=${2:?$usage}
remat_find_harness "$original" "${3:-}" || exit 2

remat_find_tools time.sh || exit 2

remat_make_tmp
# Without attribute aliases, the two modules' bodies can share one module.
"$opt" "$original" -mlir-print-local-scope -o "$tmp/original.mlir"
"$opt" "$remat" -mlir-print-local-scope -o "$tmp/remat.mlir"
/usr/bin/python3 "$here/timing_main.py" "$tmp/original.mlir" "$tmp/remat.mlir" \
  "$harness" --runs "${RUNS:-10}" --warmup "${WARMUP:-2}" > "$tmp/main.mlir"
"$opt" "$tmp/main.mlir" \
  "--remat-lower-to-cpu=buffers=${BUFFERS:-early} alignment=${ALIGNMENT:-64}" \
  -o "$tmp/main.llvm.mlir"
libs=$runtime
[ -f "$mpi_runtime" ] && libs+=,$mpi_runtime
run=("$runner" "$tmp/main.llvm.mlir" -e main -entry-point-result=void
     -shared-libs="$libs,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so")
# shellcheck disable=SC2206
run+=(${RUNNER_FLAGS:--O3})
if [ -n "${RANKS:-}" ]; then
  remat_run_ranks time.sh "$RANKS" "$tmp/ranks" "${run[@]}" > "$tmp/out.txt"
else
  "${run[@]}" > "$tmp/out.txt"
  echo >> "$tmp/out.txt"
fi
cat "$tmp/out.txt"

# The two halves of the output, without printMemref's buffer addresses.
half() {
  sed 's/base@ = 0x[0-9a-f]*//' "$tmp/out.txt" |
    awk -v want="$1" '/^== (original|rematerialized)$/ { part = $2; next }
                      part == want'
}
if [ -n "$(half original)" ] && cmp -s <(half original) <(half rematerialized); then
  echo "outputs: identical"
else
  echo "outputs: DIFFERENT"
  exit 1
fi
