#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every classifier of the installed torchvision, imported executably
# (`remat-import-torch MODEL --strict`: every op lowered, or an error naming
# the ops), batch 1, at the smallest input each family's check uses
# (importer_zoo.py), one line per model: name, input, seconds, ok or the
# error. Planning and running are importer_zoo.py's (one model a family).
#
#   benchmarks/zoo/import_all.sh [BIN_DIR]   (default: build/bin)
# A benchmark, not a test: about 20 minutes on 2 cores.
set -uo pipefail
bin=${1:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for m in $("$("$(dirname "$0")/../../scripts/python-env.sh" --path)" -c "
import torchvision.models as m
print(' '.join(sorted(m.list_models(module=m))))" 2>/dev/null); do
  shape=3,64,64
  case $m in
    inception_v3) shape=3,107,107 ;;
    googlenet) shape=3,128,128 ;;
    maxvit_t | swin_* | vgg*) shape=3,224,224 ;;  # window sizes; vgg's 7x7 pool
    vit_*_14) shape=3,28,28 ;;
    vit_*) shape=3,32,32 ;;
  esac
  start=$(date +%s)
  if "$bin/remat-import-torch" "$m" --batch 1 --input-shape "$shape" --loss xent \
       --num-classes 10 --strict -o "$work/$m.mlir" > "$work/$m.log" 2>&1; then
    result=ok
  else
    result="FAIL: $(grep -v Warning "$work/$m.log" | tail -1 | cut -c1-300)"
  fi
  echo "$m $shape $(( $(date +%s) - start )) s $result"
  rm -f "$work/$m.mlir"
done
