# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A model through remat's backend with Inductor at 100 %, 85 % and min.

    inductor_check.py MODEL [--amp bf16|fp16] [--budgets 100%,85%,min]

For each budget: no fallback, the gradients against a reference (float32:
eager PyTorch in float64; under autocast: torch.compile's own partitioner under the
same autocast), the measured peak of a step after the compiling one
(remat_torch.peak, plus the arguments remat counts) against the budget
(at min: the step remat measured when it planned) and against the model's
peak of the plan kept (its difference in percent), and at the end whether
the measured peaks never fall as the budget grows.
"""

import argparse
import copy
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_check import (grads, inductor_step, relative_difference,  # noqa: E402
                           seeded_model, step)

# Largest difference to the reference, relative to its largest value: float32
# against eager PyTorch in float64; bfloat16/float16 against the default partitioner's
# compile under the same autocast (fusion rounds differently: observed up to
# 4e-3 with bfloat16 on this machine's models).
TOLERANCE = {None: 1e-4, "bf16": 2e-2, "fp16": 5e-3}
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--amp", choices=sorted(DTYPES))
    ap.add_argument("--budgets", default="100%,85%,min")
    a = ap.parse_args()
    model, x, args = seeded_model(a.model)

    def run(m):
        if a.amp:
            with torch.autocast("cpu", dtype=DTYPES[a.amp]):
                return step(m, x)
        return step(m, x)

    if a.amp:
        run(torch.compile(model))    # torch.compile's own partitioner
        model.zero_grad(set_to_none=True)
        torch._dynamo.reset()
        ref_loss = run(torch.compile(model))
        ref = grads(model)
        model.zero_grad(set_to_none=True)
        torch._dynamo.reset()
    else:
        # float64: eager float32 loses digits where batch norm sees few
        # values (torchvision's resnet18 at batch 2, 64x64: 2.7e-02 from
        # float64, remat under Inductor 7.1e-06; benchmarks/torch/grad_reference.py).
        exact = copy.deepcopy(model).double()
        ref_loss = step(exact, x.double() if x.is_floating_point() else x)
        ref = grads(exact)

    peaks, name = [], "%s%s" % (a.model, " " + a.amp if a.amp else "")
    for budget in a.budgets.split(","):
        log, loss, peak, got = inductor_step(model, run, budget)
        falls = [e["fallback"] for e in log if "fallback" in e]
        if falls or len(log) != 1:
            print("%s at %s: FELL BACK or not one graph: %s" % (name, budget, falls or log))
            continue
        diff = max(relative_difference(got, ref), ((loss - ref_loss).abs() / ref_loss.abs()).item())
        info = log[0]
        bound = info["target"] if info["target"] is not None else info["measured"]
        total = peak + args
        # The plan kept: what remat's model says its step holds.
        planned = info["report"]["peak_after"]
        print("%s at %s: gradients %s (max relative difference %.1e); measured %d B %s "
              "budget %d B; %s its plan's %d B (%+.1f %%); %d compiles" % (
                  name, budget, "match" if diff <= TOLERANCE[a.amp] else "DIFFER", diff, total,
                  "<=" if total <= bound else ">", bound,
                  "within 2 % of" if total <= planned * 1.02 else "OVER", planned,
                  100.0 * (total - planned) / planned, info["compiles"]))
        peaks.append((budget, total))
    rising = all(p1 >= p2 for (_, p1), (_, p2) in zip(peaks, peaks[1:]))
    print("%s: %d budgets, peaks %s" % (name, len(peaks), "monotone" if rising else
                                        "NOT MONOTONE: %s" % peaks))


if __name__ == "__main__":
    main()
