#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every classifier of the installed torchvision, imported executably
# (`remat-import-torch MODEL --strict`: every op lowered, or an error naming
# the ops), batch 1, at the smallest input each family's check uses
# (importer_zoo.py --list-torchvision), one line per model: name, input,
# seconds, ok or the error. Planning, running and checking against PyTorch:
# importer_zoo.py (--models torchvision for every classifier).
#
#   benchmarks/zoo/import_all.sh [BIN_DIR]   (default: build/bin)
# A benchmark, not a test: about an hour on 2 cores.
set -uo pipefail
bin=${1:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py="$("$(dirname "$0")/../../scripts/python-env.sh" --path)"
"$py" "$(dirname "$0")/importer_zoo.py" --list-torchvision | while read -r m shape; do
  start=$(date +%s)
  if "$bin/remat-import-torch" "$m" --batch 1 --input-shape "$shape" --loss xent \
       --num-classes 10 --strict -o "$work/$m.mlir" < /dev/null > "$work/$m.log" 2>&1; then
    result=ok
  else
    result="FAIL: $(grep -v Warning "$work/$m.log" | tail -1 | cut -c1-300)"
  fi
  echo "$m $shape $(( $(date +%s) - start )) s $result"
  rm -f "$work/$m.mlir"
done
