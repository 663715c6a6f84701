#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# remat against PyTorch's own ways to save memory on one GPU, in one go:
#
#   benchmarks/torch/gpu.sh WHEEL OUT [SECONDS]
#
# On a machine with PyTorch 2.x (CUDA), transformers and one GPU, no
# network: installs WHEEL (make wheel) into a temporary folder and runs
# peers.py with the wheel's remat-opt, group by group in this order, each
# group under what is left of SECONDS (default 480) and writing
# OUT/<group>/results.json after each model:
#   1. resnet101 at rotor's size (1000x1000, batch 8), ATen kernels: no
#      recomputation, checkpoint_sequential at 2..11 segments, remat at min,
#      at each of their peaks and at rotor's ten budgets (--rotor);
#   2. gpt2, batch 16 x 1024 tokens, Inductor: compiled, checkpoint per
#      block, selective checkpointing, the memory-budget partitioner (dp) at
#      0.3 and 0.6, remat at each of their peaks and at min;
#   3. resnet101 at rotor's size, Inductor, the same peers, the model and
#      batch in channels-last for all (Inductor's own layout optimization,
#      which remat's graphs leave to the model: docs/torch-compile.md);
#   4. llama, batch 16 x 1024 tokens, Inductor, the same.
# OUT/<group>.log has each run's output; OUT/summary.txt one line a group.
# GPU_SH_DEVICE=cpu GPU_SH_QUICK=1 runs the same groups on the CPU with
# peers.py's tiny models (a check of the script, not a measurement).
set -uo pipefail
if (($# < 2)); then
  echo "usage: benchmarks/torch/gpu.sh WHEEL OUT [SECONDS]" >&2
  exit 2
fi
wheel=$1 out=$2 deadline=${3:-480}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=${PYTHON:-python3}
device=${GPU_SH_DEVICE:-cuda}
quick=()
[[ -n "${GPU_SH_QUICK:-}" ]] && quick=(--quick)
mkdir -p "$out" || exit 2
site="$(mktemp -d)/site"
if ! "$python" -m pip install -q --no-deps --no-index --target "$site" "$wheel"; then
  echo "gpu.sh: cannot install $wheel" >&2
  exit 2
fi
export REMAT_BIN_DIR="$site/remat_torch/_bin" PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
if ! "$REMAT_BIN_DIR/remat-opt" --version >/dev/null; then
  echo "gpu.sh: the wheel's remat-opt does not run here" >&2
  exit 2
fi
start=$SECONDS
: > "$out/summary.txt"
run() {
  local group=$1
  shift
  local left=$((deadline - (SECONDS - start)))
  if ((left < 30)); then
    echo "$group: skipped, $((SECONDS - start)) s of $deadline s spent" | tee -a "$out/summary.txt"
    return
  fi
  timeout "$left" "$python" "$here/peers.py" --device "$device" --steps 3 "${quick[@]}" \
    --out "$out/$group" "$@" > "$out/$group.log" 2>&1
  local rc=$?
  echo "$group: exit $rc$( ((rc == 124)) && echo ' (deadline)'), $((SECONDS - start)) s" \
    | tee -a "$out/summary.txt"
}
big=(--batch 8 --side 1000)
lm=(--batch 16 --side 1024)
[[ -n "${GPU_SH_QUICK:-}" ]] && big=() && lm=()
run resnet101-aten --models resnet101 "${big[@]}" --compiler eager --rotor
run gpt2-inductor --models gpt2 "${lm[@]}" --compiler inductor --budgets 0.3,0.6 --solvers dp
run resnet101-inductor --models resnet101 "${big[@]}" --compiler inductor --budgets 0.3,0.6 \
  --solvers dp --channels-last
run llama-inductor --models llama "${lm[@]}" --compiler inductor --budgets 0.3,0.6 --solvers dp
