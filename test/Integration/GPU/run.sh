#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs a corpus model (or what remat-opt made of it) on an NVIDIA GPU through
# `remat-opt --remat-lower-to-gpu`, libRematCudaRuntime and libRematRuntime,
# and reports the device memory the runtime measured. The GPU counterpart of
# test/Integration/CPU/run.sh.
#
# Usage: run.sh MODEL.mlir [HARNESS.mlir]
# stdout: the loss and gradients the harness prints (as run_model.sh).
# stderr: `device_window_peak_bytes=P device_window_base_bytes=B`: P is the
#         peak of the device bytes live while the model function runs (its
#         device copies of the arguments included), B the device bytes live
#         at the reset before the call (the harness's own device buffers, if
#         any; it frees them once their host copies are made); then, at exit,
#         `device_peak_bytes=N` (whole program) and the host `peak_bytes=N`.
# Environment:
#   CHIP          target GPU (default: the first GPU's compute capability
#                 from nvidia-smi, else sm_90)
#   FORMAT        isa, bin or fatbin (default fatbin)
#   BUFFERS       early (default), arena or upstream
#   COPY_STREAM=false  host copies in order with the kernels (default: those
#                 of at least COPY_STREAM_MIN_BYTES, default 2 MiB, on
#                 streams of their own; the emulation always runs every copy
#                 on its own stream)
#   COMPILE_ONLY=1  stop after lowering (with FORMAT=isa, main.ptx is the
#                 kernels' PTX; keep it with KEEP_TMP)
#   EMULATE=1     no GPU needed: -remat-lower-to-gpu{emulate=true} (mapped
#                 loops run sequentially on the CPU) with
#                 libRematCudaEmulation, which serves device buffers from
#                 host memory and counts them like libRematCudaRuntime
#   REMAT_OPT     default: remat-opt on PATH
#   REMAT_RUNTIME, REMAT_CUDA_RUNTIME  default: ../lib of REMAT_OPT (with
#                 EMULATE=1, libRematCudaEmulation from there)
#   KEEP_TMP=DIR  keep main.mlir, main.llvm.mlir (and main.ptx) in DIR
#   EXE=PATH      compile ahead of time instead of under mlir-runner's JIT:
#                 write a standalone executable to PATH (mlir-translate, llc,
#                 CC), linked to the runtimes by rpath, and run it (not with
#                 COMPILE_ONLY=1). For a GPU machine without LLVM: the
#                 executable needs the runtimes and the two runner-utils
#                 libraries, not mlir-runner. REPS=N in its environment runs
#                 the harness N times (with REMAT_REPORT_TIME=1, a step's
#                 time each; RematCudaRuntime.h).
#   MLIR_RUNNER, RUNNER_FLAGS: as for test/Corpus/run_model.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../run-common.sh
source "$here/../run-common.sh"
model=${1:?usage: run.sh MODEL.mlir [HARNESS.mlir]}
remat_find_harness "$model" "${2:-}" || exit 2
# Without a GPU the CUDA runtime fails in the driver with missing-symbol
# noise: say what to do instead.
if [ -z "${EMULATE:-}" ] && [ -z "${COMPILE_ONLY:-}" ] && ! nvidia-smi -L > /dev/null 2>&1; then
  echo "run.sh: no GPU found (nvidia-smi lists none): set EMULATE=1 to run on the CPU emulation, or COMPILE_ONLY=1 to compile only" >&2
  exit 2
fi

remat_find_opt run.sh || exit 2
libdir=$(dirname "$(readlink -f "$opt")")/../lib
runtime=${REMAT_RUNTIME:-$libdir/libRematRuntime.so}
cuda_runtime=${REMAT_CUDA_RUNTIME:-$libdir/libRematCudaRuntime.so}
[ -n "${EMULATE:-}" ] && cuda_runtime=$libdir/libRematCudaEmulation.so
runner=${MLIR_RUNNER:-$(command -v mlir-runner || echo /usr/lib/llvm-22/bin/mlir-runner)}
llvm_lib=$(dirname "$(readlink -f "$runner")")/../lib

chip=${CHIP:-}
if [ -z "$chip" ]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
        head -n 1 | tr -d ' .' || true)
  chip=sm_${cap:-90}
fi
format=${FORMAT:-fatbin}

remat_make_tmp
# The model, then the harness with a device measurement window around the
# model call.
remat_strip_module "$model" > "$tmp/main.mlir"
remat_harness_with_window "$harness" remat_device "$model" >> "$tmp/main.mlir" || exit 2

options="chip=$chip format=$format buffers=${BUFFERS:-early}"
[ "$format" = isa ] && options="$options dump-binary=$tmp/main.ptx"
[ -n "${EMULATE:-}" ] && options="$options emulate=true"
[ -n "${COPY_STREAM:-}" ] && options="$options copy-stream=$COPY_STREAM"
[ -n "${COPY_STREAM_MIN_BYTES:-}" ] && options="$options copy-stream-min-bytes=$COPY_STREAM_MIN_BYTES"
"$opt" "$tmp/main.mlir" "--remat-lower-to-gpu=$options" -o "$tmp/main.llvm.mlir"
[ -n "${COMPILE_ONLY:-}" ] && [ -z "${EXE:-}" ] && exit 0

libs="$cuda_runtime,$runtime"
for lib in ${libs//,/ }; do
  [ -f "$lib" ] || { echo "run.sh: no runtime $lib" >&2; exit 2; }
done

if [ -n "${EXE:-}" ]; then
  llvm_bin=$(dirname "$(readlink -f "$runner")")
  "$llvm_bin/mlir-translate" --mlir-to-llvmir "$tmp/main.llvm.mlir" -o "$tmp/main.ll"
  # The harness's `main` returns nothing; a C main around it gives the
  # process an exit status (and REPS).
  sed -i 's/^define void @main()/define void @remat_harness_main()/' "$tmp/main.ll"
  "$llvm_bin/llc" -O2 -relocation-model=pic -filetype=obj "$tmp/main.ll" -o "$tmp/main.o"
  cat > "$tmp/exe-main.c" <<'EOC'
#include <stdlib.h>
void remat_harness_main(void);
int main(void) {
  const char *reps = getenv("REPS");
  for (int i = 0, n = reps ? atoi(reps) : 1; i < n; ++i)
    remat_harness_main();
  return 0;
}
EOC
  # libcuda.so.1 is the GPU machine's (the driver's), not needed to link.
  # shellcheck disable=SC2086
  ${CC:-cc} "$tmp/exe-main.c" "$tmp/main.o" -o "$EXE" \
    -L"$(dirname "$cuda_runtime")" -l"$(basename "${cuda_runtime%.so}" | sed 's/^lib//')" \
    -L"$(dirname "$runtime")" -lRematRuntime \
    -L"$llvm_lib" -lmlir_runner_utils -lmlir_c_runner_utils \
    -Wl,-rpath,"$(dirname "$(readlink -f "$cuda_runtime")")" \
    -Wl,-rpath,"$(dirname "$(readlink -f "$runtime")")" -Wl,-rpath,"$llvm_lib" \
    -lm -Wl,--allow-shlib-undefined
  [ -n "${COMPILE_ONLY:-}" ] && exit 0
  REMAT_REPORT_PEAK=1 "$EXE"
  echo
  exit 0
fi
# shellcheck disable=SC2086
REMAT_REPORT_PEAK=1 "$runner" "$tmp/main.llvm.mlir" -e main \
  -entry-point-result=void \
  -shared-libs="$libs,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so" \
  ${RUNNER_FLAGS:-}
echo
