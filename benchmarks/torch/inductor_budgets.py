# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Real models through remat's backend with Inductor at several budgets:
the measured step against the budget, and whether the peaks are monotone.

    python benchmarks/torch/inductor_budgets.py MODEL [--shape 3,128,128]
        [--amp bf16] [--budgets 100%,80%,min]

MODEL is an importer spec (resnet18, timm:convnext_atto, hf:gpt2).  The
training step is the importer's (LossWrapper: cross-entropy for language
models, the sum of the outputs otherwise), batch 2, one CPU thread; the
shape is an image's (C,H,W) or a sequence's length.  For each budget: one
step compiles, measures and re-plans (the backend's loop), a second is
measured (remat_torch.peak, plus the parameters and the input) against
the budget (at min: the step the loop kept), with the largest gradient
difference to the reference (eager PyTorch; under autocast torch.compile's
own partitioner, or eager where that compile fails) relative to the
largest gradient.  A budget below remat's smallest falls back, said so.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import torch  # noqa: E402

import remat_torch  # noqa: E402
from remat_import_torch.trace import LossWrapper, load_model, token_model  # noqa: E402
from remat_torch.peak import measure  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--shape", default="3,128,128")
    ap.add_argument("--amp", choices=["bf16"])
    ap.add_argument("--budgets", default="100%,80%,min")
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    dims = [int(d) for d in a.shape.split(",")]
    model = load_model(a.model, num_classes=10, input_shape=dims if len(dims) == 3 else None)
    tok = token_model(model)
    step_model = LossWrapper(model, "xent" if tok else "sum")
    x = torch.randint(0, tok[1], (2, dims[0])) if tok else torch.randn(2, *dims)
    args = sum(t.numel() * t.element_size() for t in list(step_model.parameters()) + [x])

    def run(m):
        torch.manual_seed(1)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bool(a.amp)):
            loss = m(x)
        loss.backward()
        return loss

    def grads():
        g = [p.grad.detach().clone() for p in step_model.parameters() if p.grad is not None]
        step_model.zero_grad(set_to_none=True)
        return g

    ref_model = torch.compile(step_model) if a.amp else step_model
    try:
        run(ref_model)
    except Exception as e:   # Inductor's own compile failing under autocast
        print("reference compile failed (%s): eager reference" % type(e).__name__)
        ref_model = step_model
        run(ref_model)
    step_model.zero_grad(set_to_none=True)
    torch._dynamo.reset()
    run(ref_model)
    ref = grads()
    torch._dynamo.reset()
    scale = max(r.abs().max().item() for r in ref)
    name = "%s%s" % (a.model, " bf16" if a.amp else "")
    peaks = []
    for budget in a.budgets.split(","):
        torch._dynamo.reset()
        log = []
        compiled = torch.compile(step_model, backend=remat_torch.backend(budget, log=log))
        t0 = time.time()
        run(compiled)
        seconds = time.time() - t0
        step_model.zero_grad(set_to_none=True)
        _, peak = measure(run, compiled)
        got = grads()
        falls = [e["fallback"] for e in log if "fallback" in e]
        if falls or len(log) != 1:
            print("%s at %s: fell back or not one graph: %s" % (name, budget, falls or len(log)))
            continue
        e = log[0]
        bound = e["target"] if e["target"] is not None else e["measured"]
        diff = max((g - r).abs().max().item() for g, r in zip(got, ref)) / scale
        total = peak + args
        peaks.append(total)
        print("%s at %s: measured %d B %s budget %d B; the plan kept (planned at %s) %d B; "
              "%d compiles, %.0f s; gradient difference %.1e"
              % (name, budget, total, "<=" if total <= bound else ">", bound,
                 e["planning_budget"], e["report"]["peak_after"], e["compiles"], seconds, diff),
              flush=True)
    rising = all(p1 >= p2 for p1, p2 in zip(peaks, peaks[1:]))
    print("%s: peaks %s" % (name, "monotone" if rising else "NOT MONOTONE %s" % peaks))


if __name__ == "__main__":
    main()
