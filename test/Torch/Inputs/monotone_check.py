# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A sweep of budgets through remat's torch.compile backend, measured.

    monotone_check.py MODEL [--budgets 6] [--strategy auto-monotone]

Compiles MODEL (backend_models.py, its loss in the graph, eager compilers)
at remat's smallest budget, then at budgets evenly spread from it to the
peak without recomputation; runs a step at each and measures its peak
(remat_torch.peak). Prints one line per budget and a verdict: every
measured peak (with the parameters and input remat counts) within its
budget, and, as the budget grows, measured peaks that never fall and
predicted step times (the report's time_after) that never rise.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remat_torch  # noqa: E402
from backend_check import seeded_model, step  # noqa: E402
from remat_torch.peak import measure  # noqa: E402


def run(model, x, budget, strategy):
    """(measured peak, the report) of one step compiled at `budget`."""
    torch._dynamo.reset()
    log = []
    compiled = torch.compile(model, backend=remat_torch.backend(
        budget, "eager", log=log, strategy=strategy))
    step(compiled, x)  # compiles
    model.zero_grad(set_to_none=True)
    _, peak = measure(step, compiled, x)
    model.zero_grad(set_to_none=True)
    if len(log) != 1 or "fallback" in log[0]:
        sys.exit("%s at %s: not one graph planned by remat: %s" % (type(model).__name__,
                                                                  budget, log))
    return peak, log[0]["report"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--budgets", type=int, default=6)
    ap.add_argument("--strategy", default="auto-monotone")
    a = ap.parse_args()
    model, x, args = seeded_model(a.model)

    peak, rep = run(model, x, "min", a.strategy)
    lo, hi = rep["budget"], rep["peak_before"]
    rows = [("min", lo, peak, rep)]
    for i in range(1, a.budgets):
        b = lo + (hi - lo) * i // (a.budgets - 1)
        rows.append(("%dB" % b, b, *run(model, x, "%dB" % b, a.strategy)))
    over, order = [], []
    for (name, b, peak, rep), prev in zip(rows, [None] + rows[:-1]):
        print("%s %s: budget %d B, measured %d B + arguments %d B, predicted %d B, time %d"
              % (a.model, name, b, peak, args, rep["peak_after"], rep["time_after"]))
        if peak + args > b:
            over.append(name)
        if prev and (peak < prev[2] or rep["time_after"] > prev[3]["time_after"]):
            order.append(name)
    print("%s %s: %d budgets, %s, %s" % (
        a.model, a.strategy, len(rows),
        "every peak within its budget" if not over else "OVER BUDGET at " + ", ".join(over),
        "monotone" if not order else "NOT MONOTONE at " + ", ".join(order)))


if __name__ == "__main__":
    main()
