#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Step times and device memory of rematerialized and offloaded plans on a
# GPU (docs/benchmarks.md, "On an H100"), in two halves, since a GPU
# machine may have no LLVM:
#
#   step-times.sh build DIR   (here: remat-opt, LLVM, the CUDA toolkit)
#     plans the corpus ResNet, the GPT-like TinyDecoder (batch 32) and the
#     loop RNN (its scan's stacks on the host with --remat-offload) at
#     several budgets with and without --remat-offload, compiles each step
#     ahead of time (run.sh's EXE=, fatbin for CHIP, default sm_90), runs
#     each on the emulation for its reference outputs and peaks, and copies
#     the runtimes and this script into DIR.
#     STEPS="NAME ..." builds only those steps (default: all below).
#   DIR/step-times.sh run DIR [ROUNDS]   (on the GPU machine)
#     runs every step REPS=41 times with REMAT_REPORT_TIME=1, with the
#     runtime's two device allocators (the default memory pool in stream
#     order, "pool", and REMAT_CUDA_ALLOCATOR=sync), ROUNDS rounds
#     (default 3) alternating; prints one row per step and allocator: the
#     median step time (the first step of each run dropped), the counted
#     device peak against the emulation's, the pool's high watermark, and
#     whether the outputs match the emulation's within 1e-5 relative.
#     First, calibrate-link's table: the time of a copy to and from pinned
#     host memory by size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:?usage: step-times.sh build|run DIR [ROUNDS]}
dir=${2:?usage: step-times.sh build|run DIR [ROUNDS]}

# STEPS selects by name; the run half runs what the build half built.
selected() {
  if [ -n "${STEPS:-}" ]; then
    steps | awk -F'|' -v want=" $STEPS " 'index(want, " " $1 " ")'
  else
    steps
  fi
}

# name | model | remat-opt options (none: the step as written); a name
# ending in -streams runs every host copy on a stream of its own
# (COPY_STREAM_MIN_BYTES=0; by default these steps' copies, a few KiB
# each, stay in order with the kernels).
steps() {
  cat <<'EOS'
resnet-none|resnet|
resnet-60-rc|resnet|--remat-budget=60%
resnet-60-off|resnet|--remat-budget=60% --remat-offload
resnet-50-rc|resnet|--remat-budget=50%
resnet-50-off|resnet|--remat-budget=50% --remat-offload
resnet-50-off-streams|resnet|--remat-budget=50% --remat-offload
resnet-min-rc|resnet|--remat-budget=min
resnet-min-offres|resnet|--remat-budget=min --remat-offload --remat-offload-results
dec-none|dec|
dec-70-rc|dec|--remat-budget=70%
dec-70-off|dec|--remat-budget=70% --remat-offload
dec-50-off|dec|--remat-budget=50% --remat-offload
dec-min-rc|dec|--remat-budget=min
dec-min-off|dec|--remat-budget=min --remat-offload
dec-min-offres|dec|--remat-budget=min --remat-offload --remat-offload-results
dec-min-offres-streams|dec|--remat-budget=min --remat-offload --remat-offload-results
rnn-none|rnn|
rnn-50-rc|rnn|--remat-budget=50%
rnn-50-hoststacks|rnn|--remat-budget=50% --remat-offload
rnn-min-hoststacks|rnn|--remat-budget=min --remat-offload
EOS
}

if [ "$mode" = build ]; then
  mkdir -p "$dir/in"
  cp "$here/../../Corpus/Inputs/resnet.mlir" "$here/../../Corpus/Inputs/resnet.harness.mlir" \
     "$here/../../Loops/Inputs/rnn.mlir" "$here/../../Loops/Inputs/rnn.harness.mlir" "$dir/in/"
  if selected | grep -q '|dec|'; then
    remat-import-torch "$here/../../Importer/Inputs/models.py:TinyDecoder" --batch 32 \
      --input-shape 8 --loss xent --strict -o "$dir/in/dec.mlir" \
      --harness "$dir/in/dec.harness.mlir"
  fi
  selected | while IFS='|' read -r name model options; do
    src=$dir/in/$model.mlir
    if [ -n "$options" ]; then
      # shellcheck disable=SC2086
      remat-opt "$src" $options --remat-report="$dir/$name.json" -o "$dir/in/$name.mlir"
      src=$dir/in/$name.mlir
    fi
    min_bytes=
    [ "${name%-streams}" != "$name" ] && min_bytes=0
    COPY_STREAM_MIN_BYTES=$min_bytes CHIP=${CHIP:-sm_90} COMPILE_ONLY=1 EXE=$dir/$name.exe \
      "$here/run.sh" "$src" "$dir/in/$model.harness.mlir"
    EMULATE=1 "$here/run.sh" "$src" "$dir/in/$model.harness.mlir" \
      > "$dir/$name.ref" 2> "$dir/$name.ref.err"
  done
  libdir=$(dirname "$(readlink -f "$(command -v remat-opt)")")/../lib
  mkdir -p "$dir/lib"
  cp "$libdir/libRematCudaRuntime.so" "$libdir/libRematRuntime.so" "$dir/lib/"
  # LLVM's runner-utils libraries need libLLVM (150 MB); the harnesses call
  # one function of them, printMemrefF32: stand-ins with their sonames,
  # printing what LLVM's prints (RunnerUtils.h's templates).
  printf '%s\n' '#include "mlir/ExecutionEngine/RunnerUtils.h"' \
    'extern "C" void printMemrefF32(int64_t rank, void *ptr) {' \
    '  UnrankedMemRefType<float> descriptor = {rank, ptr};' \
    '  std::cout << "Unranked Memref ";' \
    '  impl::printMemRef(DynamicMemRefType<float>(descriptor));' '}' > "$dir/shim.cpp"
  ${CXX:-c++} -O2 -shared -fPIC -I/usr/lib/llvm-22/include "$dir/shim.cpp" \
    -Wl,-soname,libmlir_runner_utils.so.22.1 -o "$dir/lib/libmlir_runner_utils.so.22.1"
  echo 'int remat_no_c_runner_utils;' | ${CC:-cc} -shared -fPIC -x c - \
    -Wl,-soname,libmlir_c_runner_utils.so.22.1 -o "$dir/lib/libmlir_c_runner_utils.so.22.1"
  rm "$dir/shim.cpp"
  cuda=${CUDA_HOME:-/usr/local/cuda}
  ${CXX:-c++} -O2 -I"$cuda/include" "$here/calibrate-link.cpp" \
    -L"$cuda/lib64/stubs" -lcuda -o "$dir/calibrate-link"
  cp "$0" "$here/compare-outputs.py" "$dir/"
  rm -rf "$dir/in"
  exit 0
fi

[ "$mode" = run ] || { echo "step-times.sh: build or run, not '$mode'" >&2; exit 2; }
rounds=${3:-3}
export LD_LIBRARY_PATH=$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_MODULE_LOADING=EAGER
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | awk 'NR == 1'; }
names=$(steps | cut -d'|' -f1 | while read -r n; do
           if [ -x "$dir/$n.exe" ]; then echo "$n"; fi
         done)
"$dir/calibrate-link"
for r in $(seq "$rounds"); do
  for name in $names; do
    for alloc in pool sync; do
      REMAT_CUDA_ALLOCATOR=${alloc/pool/} REPS=41 REMAT_REPORT_TIME=1 REMAT_REPORT_PEAK=1 \
        "$dir/$name.exe" > "$dir/$name.$alloc.$r.out" 2> "$dir/$name.$alloc.$r.err" ||
        echo "$name ($alloc): exit $?" >&2
    done
  done
done
echo "| step | allocator | median step | device peak (emulated) | pool used high | outputs |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
for name in $names; do
  for alloc in pool sync; do
    # Steps 2..41 of every round.
    median=$(for r in $(seq "$rounds"); do
               sed -n 's/^device_window_seconds=//p' "$dir/$name.$alloc.$r.err" | tail -n +2
             done | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f ms", 1000 * v[int((NR + 1) / 2)] }')
    peak=$(field device_window_peak_bytes "$dir/$name.$alloc.1.err")
    ref=$(field device_window_peak_bytes "$dir/$name.ref.err")
    pool=$(field device_pool_window_used_high_bytes "$dir/$name.$alloc.1.err")
    # The first step's outputs (the harness prints each step's).
    lines=$(sed '/^$/d' "$dir/$name.ref" | wc -l)
    awk -v n="$lines" 'NF && ++k <= n' "$dir/$name.$alloc.1.out" > "$dir/$name.$alloc.first"
    same=$(python3 "$dir/compare-outputs.py" "$dir/$name.ref" "$dir/$name.$alloc.first" > /dev/null 2>&1 &&
           echo same || echo DIFFER)
    echo "| $name | $alloc | $median | $peak ($ref) | ${pool:--} | $same |"
  done
done
