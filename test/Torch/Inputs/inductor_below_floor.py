# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A budget below remat's smallest model budget under Inductor.

    inductor_below_floor.py MODEL

Compiles MODEL with remat's backend at min (Inductor) and reads the
model's smallest budget F and the step's measured peak M; then asks for
the budget halfway between, (M + F) / 2 bytes, below what remat's model
can meet: the step is planned (at min first) rather than falling back to
PyTorch's partitioner, its gradients match eager PyTorch's, and its
measured peak is within that budget.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_check import (grads, inductor_step, relative_difference,  # noqa: E402
                           seeded_model, step)


def main():
    name = sys.argv[1]
    model, x, args = seeded_model(name)
    step(model, x)
    ref = grads(model)
    model.zero_grad(set_to_none=True)

    def run(m):
        return step(m, x)

    log = inductor_step(model, run, "min")[0]
    floor, measured = log[0]["report"]["peak_after"], log[0]["measured"]
    print("%s: min measures %.3f of its plan" % (name, measured / floor))
    if measured >= floor:
        print("%s: min measures %d B, not below its model's %d B: nothing to test" % (
            name, measured, floor))
        return
    budget = (measured + floor) // 2
    log, _, peak, got = inductor_step(model, run, "%dB" % budget)
    falls = [e["fallback"] for e in log if "fallback" in e]
    if falls or len(log) != 1:
        print("%s at %d B: FELL BACK or not one graph: %s" % (name, budget, falls or log))
        return
    diff = relative_difference(got, ref)
    total = peak + args
    print("%s: below the model's smallest budget (%d B), at %d B: gradients %s (%.1e); "
          "measured %d B %s budget" % (name, floor, budget,
                                       "match" if diff <= 1e-4 else "DIFFER", diff, total,
                                       "<=" if total <= budget else ">"))


if __name__ == "__main__":
    main()
