#!/usr/bin/env bash
# The README's example: what remat does today on the shipped examples.
set -euo pipefail
build=${1:-build}
bin="$build/bin"

echo "== remat-opt: the MLP training step (examples/mlp-train-step.mlir) parses"
echo "   and verifies; the rematerialization pass (--remat-budget) has not"
echo "   landed yet, so this prints the step after the remat clean-up passes."
"$bin/remat-opt" examples/mlp-train-step.mlir -remat-check-executable \
  -remat-inline-recompute | head -n 20
echo "   ..."

if [ -x "$bin/remat-plan" ]; then
  echo
  echo "== remat-plan: rotor's toy chain (examples/rotor-toy-chain.json)"
  echo "   without rematerialization, then within 90 MB"
  "$bin/remat-plan" --strategy=none examples/rotor-toy-chain.json | cut -c1-200
  "$bin/remat-plan" --budget=90MB examples/rotor-toy-chain.json | cut -c1-400
fi
