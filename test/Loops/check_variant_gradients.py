#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks a gen_scan_variants.py variant's loss and gradients against
PyTorch.

Generates the variant (loop or unrolled form) and its harness, runs them
through run_loop.sh (upstream MLIR 22 on the CPU), runs the same network in
PyTorch (float64, autograd, the same argument values bit for bit) and
requires, per tensor, max |mlir - torch| <= rtol * max |torch| (and a
non-zero PyTorch gradient): the backward loop of every spelling is the
adjoint of its forward loop.

Usage: check_variant_gradients.py --seed N [gen_scan_variants.py's choices]
       [--form loop|unrolled] [--rtol R]
Exit status 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Corpus"))
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_scan_variants as gv  # noqa: E402
from check_gradients import arg_values, compare, parse_memrefs  # noqa: E402


def reference(ch, a):
    """(loss, [(name, tensor whose .grad is the result)] in result order,
    [h_0 .. h_T])."""
    T = ch.steps

    def stacked(hs):
        """whole=loss: the sum of the stack of h, the loss reads it whole (h_0
        .. h_T with rows at k + 1, h_0 .. h_{T-1} otherwise)."""
        if ch.whole != "loss":
            return 0.0
        return sum(h.sum() for h in (hs if ch.layout == "next" else hs[:-1]))
    if ch.model == "rnn":
        h0, w = a["h0"], a["ws" if ch.params else "w"]
        h, hs = h0, [h0]
        for k in range(T):
            h = torch.tanh(h @ (w[k] if ch.params else w))
            hs.append(h)
        return h.sum() + stacked(hs), [("ws" if ch.params else "w", w), ("h0", h0)], hs
    if ch.model == "lstm":
        nf, na = ("wfs", "was") if ch.params else ("wf", "wa")
        h0, c0, wf, wa = a["h0"], a["c_init"], a[nf], a[na]
        h, c, hs = h0, c0, [h0]
        for k in range(T):
            f = torch.sigmoid(h @ (wf[k] if ch.params else wf))
            c = f * c + torch.tanh(h @ (wa[k] if ch.params else wa))
            h = torch.tanh(c)
            hs.append(h)
        return h.sum() + c.sum() + stacked(hs), [(nf, wf), (na, wa), ("h0", h0),
                                                ("c_init", c0)], hs
    h0, ws = a["h0"], a["ws"]
    h, hs = h0, [h0]
    for k in range(T):
        h = h + torch.relu(h @ ws[k])
        hs.append(h)
    return (h * h).sum() + stacked(hs), [("ws", ws), ("h0", h0)], hs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--model", choices=gv.MODELS)
    ap.add_argument("--params", action="store_true", default=None)
    ap.add_argument("--no-params", dest="params", action="store_false")
    ap.add_argument("--stacks", type=int)
    ap.add_argument("--layout", choices=gv.LAYOUTS)
    ap.add_argument("--lb", type=int)
    ap.add_argument("--backward", choices=gv.BACKWARDS)
    ap.add_argument("--cond", choices=gv.CONDS)
    ap.add_argument("--decrement", choices=gv.DECREMENTS)
    ap.add_argument("--spelling", choices=gv.SPELLINGS)
    ap.add_argument("--metric", choices=gv.METRICS[2:] + ["none"])
    ap.add_argument("--steps", "-T", type=int)
    ap.add_argument("--batch", "-B", type=int)
    ap.add_argument("--width", "-W", type=int)
    ap.add_argument("--form", choices=["loop", "unrolled"], default="loop")
    ap.add_argument("--rtol", type=float, default=1e-4)
    a = ap.parse_args()
    torch.set_num_threads(1)
    ch = gv.Choices(a.seed, model=a.model, params=a.params, stacks=a.stacks,
                    layout=a.layout, lb=a.lb, backward=a.backward, cond=a.cond,
                    decrement=a.decrement, spelling=a.spelling, metric=a.metric,
                    steps=a.steps,
                    batch=a.batch, width=a.width)
    g, _, _ = gv.build(ch, "loop")
    args = {v.ssa[1:]: arg_values(init, v.shape).requires_grad_(True)
            for v, init in zip(g.args, g.inits)}
    loss, wrt, hs = reference(ch, args)
    loss.backward()
    # metric=f32: the last result, the sum of h_1 .. h_T (no gradient).
    metric = [sum(h.sum() for h in hs[1:]).detach()] if ch.metric != "none" else []
    with tempfile.TemporaryDirectory() as tmp:
        mlir = os.path.join(tmp, "model.mlir")
        with open(mlir, "w") as fh:
            fh.write(gv.model_text(ch, a.form))
        harness = os.path.join(tmp, "harness.mlir")
        with open(harness, "w") as fh:
            fh.write(gv.harness_text(ch))
        res = subprocess.run(["bash", os.path.join(HERE, "run_loop.sh"), mlir, harness],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("check_variant_gradients: run_loop.sh failed")
    printed = parse_memrefs(res.stdout)
    label = "seed %d (%s, %s form)" % (ch.seed, ch.line(), a.form)
    if len(printed) != 1 + len(wrt) + len(metric):
        print("%s: %d tensors printed, expected %d FAIL" % (
            label, len(printed), 1 + len(wrt) + len(metric)))
        return 1
    ok = compare("seed %d: loss" % ch.seed, *printed[0], loss.detach(), a.rtol)
    for (name, t), (shape, vals) in zip(wrt, printed[1:]):
        ok &= compare("seed %d: d%s" % (ch.seed, name), shape, vals, t.grad, a.rtol)
    for m in metric:
        ok &= compare("seed %d: metric" % ch.seed, *printed[-1], m, a.rtol)
    print("%s: %s (loss and %d gradients%s, rtol %g)"
          % (label, "PASS" if ok else "FAIL", len(wrt), ", metric" if metric else "", a.rtol))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
