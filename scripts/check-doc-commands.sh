#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs the command blocks of README.md and docs/*.md that the lit tests
# leave out (test/docs/*-commands.test run the fast ones): the slow ones
# (benchmarks, sweeps), with a GPU (nvidia-smi) the gpu ones, and with
# --build the ones that build or install. Each block runs as printed, from
# the project root, with build/bin on PATH (as the README sets it up) and
# the project's Python environment (scripts/python-env.sh) after it, whose
# `python` the pages' `python` commands mean. One line per block: ok,
# FAIL (why), or skipped (its kind); a summary at the end; the exit status
# is non-zero when a block failed.
#
#   scripts/check-doc-commands.sh [--build] [--timeout SECONDS] [PAGE.md...]
#
# --timeout: the most seconds a block may run (default: no limit); one that
# runs longer is killed and counted as failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
kinds=slow
timeout=()
pages=()
while (($#)); do
  case "$1" in
    --build) kinds+=,build ;;
    --timeout) timeout=(--timeout "$2"); shift ;;
    *) pages+=("$1") ;;
  esac
  shift
done
((${#pages[@]})) || pages=(README.md docs/*.md)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  kinds+=,gpu
fi
venv_python="$(scripts/python-env.sh --path 2>/dev/null || true)"
if [[ -x "$venv_python" ]]; then
  export PATH="$(dirname "$venv_python"):$PATH"
fi
failed=0
for page in "${pages[@]}"; do
  echo "== $page"
  /usr/bin/python3 test/docs/Inputs/run_doc_blocks.py "$page" . build/bin \
    --run "$kinds" --keep-going "${timeout[@]}" 2>&1 | grep --line-buffered -v '^skipped (fast'
  ((PIPESTATUS[0] == 0)) || failed=$((failed + 1))
done
if ((failed)); then
  echo "check-doc-commands: blocks failed on $failed page(s)"
  exit 1
fi
echo "check-doc-commands: every block run passed"
