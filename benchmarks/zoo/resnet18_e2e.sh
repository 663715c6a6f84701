#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ResNet-18 end to end: import (remat-import-torch), rematerialize within a
# budget, lower to the CPU, run with libRematRuntime, compare the loss and
# all 62 gradients with PyTorch's backward() (float64, rtol 1e-4) and the
# measured peak with the budget.  Minutes on 2 cores; not part of the lit
# suite (test/Importer runs the same check on small models).
#
# Usage: benchmarks/zoo/resnet18_e2e.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  default build (needs bin/remat-opt, bin/remat-import-torch,
#              lib/libRematRuntime.so)
#   OUT_DIR    default benchmarks/zoo/results/resnet18-e2e (logs, JSON)
#
# Runs:
#  1. the issue's configuration: 32x32 images, batch 2, cross-entropy,
#     budget 50% of the no-remat peak.  Parameters and gradients (93.5 MB)
#     are 99.5% of that peak, so the pass refuses 50% and names the
#     smallest budget it can meet; the step then runs at that budget (its
#     check fails: float32 cannot match float64 here, docs/benchmarks.md).
#  2. batch 16 (activations matter more; the batch statistics of the 1x1
#     feature maps of the last stage are over 16 values, so the step is
#     well-conditioned): the smallest budget the pass can meet.
# Both compare at the MLIR run's ReLU pattern too (--match-masks; see
# docs/importer.md, "Conditioning").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build}
out=${2:-$here/results/resnet18-e2e}
mkdir -p "$out"
tool=$build/bin/remat-import-torch
[ -x "$tool" ] || { echo "resnet18_e2e: no $tool (configure with cmake)" >&2; exit 2; }

run() {  # name, args...
  local name=$1; shift
  echo "== $name: remat-import-torch check resnet18 $*"
  /usr/bin/time -f "$name: %e s wall, %M KiB max RSS" \
    "$tool" check resnet18 "$@" --work "$out/$name" --json "$out/$name.json" \
    2>&1 | tee "$out/$name.log" | grep -v ' ok$'
}

status=0
run b2-50pct --batch 2 --input-shape 3,32,32 --loss xent --budget 50% || true
run b2-min --batch 2 --input-shape 3,32,32 --loss xent --budget min --match-masks || status=1
run b16-min --batch 16 --input-shape 3,32,32 --loss xent --budget min --match-masks || status=1
# The work directories hold the IR (tens of MB); keep the logs and JSON.
rm -rf "$out"/b2-50pct "$out"/b2-min "$out"/b16-min
exit $status
