# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One model through torch.compile with remat's backend, against eager PyTorch.

    backend_check.py MODEL [--budget 60%] [--compiler eager|inductor]

The loss is part of the compiled graph unless --loss-outside (then the
graph's backward starts from the gradient of the model's output).  Prints,
for FileCheck: the gradients' largest relative difference to eager
PyTorch (float32, same seed: dropout draws the same masks), the measured
peak (remat_torch.peak, plus the parameters and inputs that remat counts
and the measurement does not) against remat's budget, and whether the
values the forward graph saves are the ones remat-opt's report keeps.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import backend_models  # noqa: E402
import remat_torch  # noqa: E402
from remat_torch.forward_copies import read_before_recomputed  # noqa: E402
from remat_torch.peak import measure  # noqa: E402


class WithLoss(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x).square().mean()


def step(model, x):
    loss = model(x)
    if loss.dim():
        loss = loss.square().mean()
    loss.backward()
    return loss


def seeded_model(name):
    """backend_models' NAME with its loss in the graph, its example input
    and the bytes of both that remat counts as arguments (seeded, one
    thread)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cls = getattr(backend_models, name)
    model, x = WithLoss(cls()), cls.example()
    return model, x, sum(t.numel() * t.element_size() for t in list(model.parameters()) + [x])


def grads(model):
    return [p.grad.detach().clone() for p in model.parameters()]


def inductor_step(model, run, budget):
    """(backend log, loss, measured peak without arguments, gradients) of
    `run(module)` on `model` compiled by remat's backend with Inductor at
    `budget`: the compiling call (which measures and re-plans), then the
    one measured."""
    torch._dynamo.reset()
    log = []
    compiled = torch.compile(model, backend=remat_torch.backend(budget, "inductor", log=log))
    run(compiled)
    model.zero_grad(set_to_none=True)
    loss, peak = measure(run, compiled)
    got = grads(model)
    model.zero_grad(set_to_none=True)
    return log, loss, peak, got


def relative_difference(got, ref):
    """The largest gradient difference relative to the largest reference
    gradient of all (a convolution's bias before a batch norm has a
    gradient of zero, in rounding noise)."""
    scale = max(r.abs().max().item() for r in ref)
    return max((g - r).abs().max().item() for g, r in zip(got, ref)) / scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--budget", default="60%")
    ap.add_argument("--compiler", default="eager")
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--costs", default="auto")
    ap.add_argument("--loss-outside", action="store_true",
                    help="compile the model alone (the loss and its backward run eagerly)")
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cls = getattr(backend_models, a.model)
    model, x = cls(), cls.example()
    model = model if a.loss_outside else WithLoss(model)

    torch.manual_seed(1)
    ref_loss = step(model, x)
    ref = grads(model)

    log = []
    compiled = torch.compile(model, dynamic=a.dynamic or None,
                             backend=remat_torch.backend(a.budget, a.compiler, log=log,
                                                         costs=a.costs))
    step(compiled, x)   # compiles; the measured step below allocates only what it runs
    model.zero_grad(set_to_none=True)
    torch.manual_seed(1)
    loss, peak = measure(step, compiled, x)
    got = grads(model)
    if any(e.get("fallback") for e in log):
        print("%s: fell back" % a.model)
        return
    diff = max(((g - r).abs().max() / r.abs().max().clamp_min(1e-12)).item()
               for g, r in zip(got, ref))
    diff = max(diff, ((loss - ref_loss).abs() / ref_loss.abs()).item())
    print("%s %s: gradients %s (max relative difference %.1e)"
          % (a.model, a.compiler, "match" if diff < 1e-4 else "DIFFER", diff))

    info = log[0]
    rep = info["report"]
    if info["costs"] in ("measured", "kernels"):
        # kernels: re-planned on Inductor's own kernels' times (kernel_times.py).
        print("%s: costs measured%s for %d ops, %d estimated from FLOPs at the graph's rate "
              "(%d over the time limit)"
              % (a.model, " on Inductor's kernels" if info["costs"] == "kernels" else "",
                 info["measured_ops"], info["estimated_ops"], info["over_time_limit"]))
    args = sum(t.numel() * t.element_size() for t in list(model.parameters()) + [x])
    # With Inductor the budget is the one asked (`target`), or at min the
    # step remat measured when it planned (remat_torch/inductor_fit.py).
    bound = rep["budget"]
    if "measured" in info:
        bound = info["target"] if info["target"] is not None else info["measured"]
    print("%s: measured %d B + arguments %d B %s budget %d B (predicted %d B, %d saved, "
          "%d recomputed)" % (a.model, peak, args, "<=" if peak + args <= bound else ">",
                               bound, rep["peak_after"], len(info["saved"]),
                               len(info["recomputed"])))
    if "measured" in info:
        # Under Inductor: the step measured against the plan's own peak.
        print("%s: measured %.3f of the plan's peak" % (a.model, info["measured"] / rep["peak_after"]))

    # The saved values against the report: every saved activation is an op's
    # value the report keeps (or a view of one, or of an input); every value
    # the report recomputes and the backward reads is computed by the
    # backward graph, never saved.
    decisions = {v["loc"]: v["decision"] for v in rep["values"]}
    nodes = {n.name: n for n in info["joint"].graph.nodes}

    def root(name):
        n = nodes[name]
        while n.op == "call_function" and n.name not in decisions and n.all_input_nodes:
            n = n.all_input_nodes[0]
        return n.name
    saved = {root(s) for s in info["saved"]}
    # A value the plan keeps into the backward phase and recomputes after
    # its first readers there is saved (remat_torch/forward_copies.py), as
    # is one recomputed in the forward phase only (its last copy).
    order, start = info["run_order"], info["backward_start"]
    kept_late = {n.name for n in read_before_recomputed(
        info["joint_graph"], order, start, info["named"])} | (set(order) - set(order[start:]))
    bad = [s for s in saved if decisions.get(s, "kept") != "kept" and s not in kept_late]
    bwd = set(info["backward_nodes"])
    missing = [n for n, d in decisions.items() if d == "recomputed" and n in info["recomputed"]
               and n not in bwd]
    kept = [s for s in saved if decisions.get(s) == "kept"]
    print("%s: saved values %s the report (%d kept activations saved, %d recomputed)%s"
          % (a.model, "match" if not bad and not missing else "DO NOT MATCH",
             len(kept), sum(d == "recomputed" for d in decisions.values()),
             "".join(": %s %s" % (w, sorted(x)) for w, x in (("saved but recomputed", bad),
                                                           ("recomputed, not in the backward",
                                                            missing)) if x)))


if __name__ == "__main__":
    main()
