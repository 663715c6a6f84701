#!/usr/bin/env bash
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

if [ -n "${KEEP_TMP:-}" ]; then
  tmp=$KEEP_TMP; mkdir -p "$tmp"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fi

# The model without the `module { ... }` remat-opt prints around it, then
# the harness with a device measurement window around the model call.
awk '
  { line[NR] = $0 }
  !open && /^module([ \t].*)?\{[ \t]*$/ { open = NR }
  END {
    close_at = 0
    if (open) for (i = NR; i > open; i--) if (line[i] ~ /^\}[ \t]*$/) { close_at = i; break }
    for (i = 1; i <= NR; i++) if (i != open && i != close_at) print line[i]
  }' "$model" > "$tmp/main.mlir"
callee=$(grep -o 'func\.call @[A-Za-z0-9_]*(' "$harness" |
         grep -v '@printMemref' | head -n 1 | sed 's/func\.call @//; s/(//')
[ -n "$callee" ] || { echo "run.sh: no model call in $harness" >&2; exit 2; }
window=remat_device
{
  echo "func.func private @${window}_reset_peak()"
  echo "func.func private @${window}_print_peak()"
  awk -v callee="$callee" -v window="$window" '
    index($0, "func.call @" callee "(") {
      print "  func.call @" window "_reset_peak() : () -> ()"
      pending = 1
    }
    { print }
    pending && /->/ { print "  func.call @" window "_print_peak() : () -> ()"; pending = 0 }
  ' "$harness"
} >> "$tmp/main.mlir"

options="chip=$chip format=$format buffers=${BUFFERS:-early}"
[ "$format" = isa ] && options="$options dump-binary=$tmp/main.ptx"
[ -n "${EMULATE:-}" ] && options="$options emulate=true"
"$opt" "$tmp/main.mlir" "--remat-lower-to-gpu=$options" -o "$tmp/main.llvm.mlir"
[ -n "${COMPILE_ONLY:-}" ] && exit 0

libs="$cuda_runtime,$runtime"
for lib in ${libs//,/ }; do
  [ -f "$lib" ] || { echo "run.sh: no runtime $lib" >&2; exit 2; }
done
# shellcheck disable=SC2086
REMAT_REPORT_PEAK=1 "$runner" "$tmp/main.llvm.mlir" -e main \
  -entry-point-result=void \
  -shared-libs="$libs,$llvm_lib/libmlir_c_runner_utils.so,$llvm_lib/libmlir_runner_utils.so" \
  ${RUNNER_FLAGS:-}
echo
