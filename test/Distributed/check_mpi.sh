#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# One sharded form of the GPT-like step under MPI (issue 32, item 5):
#   check_mpi.sh FORM RANKS DIR [BUDGET...] [-- GENERATOR FLAGS]
# 1. generates FORM for RANKS devices and its single-device twin;
# 2. runs both unchanged (the sharded one as RANKS processes, run.sh's
#    RANKS=N) and checks the loss and each rank's gradient shards against the
#    twin's (check_sharded.py outputs, 1e-5 relative);
# 3. check_remat.py --ranks RANKS --exact at each BUDGET (default: 100% 60%
#    min) with remat-opt's defaults: every rank prints what the original
#    printed, and every rank's measured peak equals the planned per-device
#    peak, at most the budget.
set -euo pipefail
form=${1:?usage: check_mpi.sh FORM RANKS DIR [BUDGET...] [-- FLAGS]}
ranks=${2:?usage: check_mpi.sh FORM RANKS DIR [BUDGET...] [-- FLAGS]}
dir=${3:?usage: check_mpi.sh FORM RANKS DIR [BUDGET...] [-- FLAGS]}
shift 3
budgets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do budgets+=("$1"); shift; done
[ $# -gt 0 ] && shift
flags=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(100% 60% min)

here=$(cd "$(dirname "$0")" && pwd)
# check_sharded.py needs numpy: the tests pass lit's %python (the project's
# Python environment, scripts/python-env.sh) as PYTHON.
py=${PYTHON:-/usr/bin/python3}
run_sh="$here/../Integration/CPU/run.sh"
tag="$form${flags[*]:+ ${flags[*]}}"
name="$dir/$form$(printf '%s' "${flags[*]:-}" | tr -c 'a-z0-9' '_')"
mkdir -p "$dir"

"$py" "$here/gen_sharded.py" --form single "${flags[@]}" -o "$name.single.mlir"
"$py" "$here/gen_sharded.py" --form "$form" --ranks "$ranks" "${flags[@]}" \
  -o "$name.n$ranks.mlir"
"$run_sh" "$name.single.mlir" > "$name.single.out" 2> "$name.single.err"
RANKS=$ranks "$run_sh" "$name.n$ranks.mlir" > "$name.n$ranks.out" \
  2> "$name.n$ranks.err"
"$py" "$here/check_sharded.py" outputs --form "$form" --ranks "$ranks" \
  "${flags[@]}" "$name.single.out" "$name.n$ranks.out" | tail -1
"$py" "$here/../Integration/CPU/check_remat.py" "$name.n$ranks.mlir" \
  --ranks "$ranks" --budgets "${budgets[@]}" --pipeline fit --exact
echo "mpi: $tag at $ranks ranks: done"
