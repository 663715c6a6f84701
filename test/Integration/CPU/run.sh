#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs a corpus model (or what remat-opt made of it) on the CPU through
# `remat-opt --remat-lower-to-cpu` and libRematRuntime, and reports the
# memory the runtime measured.
#
# Usage: run.sh MODEL.mlir [HARNESS.mlir]
# stdout: the loss and gradients the harness prints (as run_model.sh).
# stderr: `window_peak_bytes=P window_base_bytes=B`: P is the peak of the
#         bytes live while the step runs, B the bytes live when it is
#         called (its arguments, built by the harness); then, at exit,
#         `peak_bytes=N`, the peak of the whole program (harness included).
# The step is the function of MODEL the harness calls (the one with
# remat.loss when it calls several); a helper of the harness's own is not
# measured.
# Environment:
#   STEP        the step's name, where that does not tell it
#   BUFFERS     early (default), arena or upstream: the `buffers` option of
#               -remat-lower-to-cpu
#   ALIGNMENT   its `alignment` option (default 64; 1 counts exact bytes)
#   FP_CONTRACT its `fp-contract` option (default: the pipeline's, true;
#               false rounds every product and sum apart, as the upstream
#               lowering of test/Corpus/run_model.sh does)
#   REMAT_OPT   default: remat-opt next to this build's libRematRuntime, or
#               on PATH
#   REMAT_RUNTIME  path of libRematRuntime.so (default: ../lib of REMAT_OPT)
#   KEEP_TMP=DIR  keep main.mlir and main.llvm.mlir in DIR
#   RANKS=N     run the program as N processes under MPICH
#               (`mpiexec.mpich -n N`, or MPIEXEC), one per device of its
#               shard grid; stdout is rank 0's output, then rank 1's, ...
#               (each followed by an empty line), stderr their stderr in
#               the same order, each peak line prefixed by `rank=R `; the
#               status is non-zero when any rank failed. Each rank's stdout
#               and stderr are in RANK.out and RANK.err of ranks/ in the tmp
#               directory. Needs libRematMpiRuntime.so (REMAT_MPI_RUNTIME,
#               default: next to REMAT_RUNTIME), which is also loaded
#               without RANKS when it exists (a 1-device grid runs as one
#               process).
#   MLIR_RUNNER, RUNNER_FLAGS: as for test/Corpus/run_model.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../run-common.sh
source "$here/../run-common.sh"
model=${1:?usage: run.sh MODEL.mlir [HARNESS.mlir]}
remat_find_harness "$model" "${2:-}" || exit 2

remat_find_tools run.sh || exit 2

remat_make_tmp
# The model, then the harness with a measurement window around the model
# call (the runtime's peak is reset before it and printed after it).
remat_strip_module "$model" > "$tmp/main.mlir"
remat_harness_with_window "$harness" remat "$model" >> "$tmp/main.mlir" || exit 2

"$opt" "$tmp/main.mlir" \
  "--remat-lower-to-cpu=buffers=${BUFFERS:-early} alignment=${ALIGNMENT:-64}${FP_CONTRACT:+ fp-contract=$FP_CONTRACT}" \
  -o "$tmp/main.llvm.mlir"
libs=$runtime
if [ -f "$mpi_runtime" ]; then
  libs+=,$mpi_runtime
elif [ -n "${RANKS:-}" ]; then
  echo "run.sh: RANKS=$RANKS needs the collectives runtime $mpi_runtime (built when CMake finds MPICH)" >&2
  exit 2
fi
run=("$runner" "$tmp/main.llvm.mlir" -e main -entry-point-result=void
     -shared-libs="$libs,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so")
# shellcheck disable=SC2206
run+=(${RUNNER_FLAGS:-})
if [ -n "${RANKS:-}" ]; then
  REMAT_REPORT_PEAK=1 remat_run_ranks run.sh "$RANKS" "$tmp/ranks" "${run[@]}"
else
  REMAT_REPORT_PEAK=1 "${run[@]}"
  echo
fi
