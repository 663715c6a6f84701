#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks a gen_loops.py model's loss and gradients against PyTorch.

Generates the model (loop or unrolled form, any size) and its harness with
gen_loops.py, runs them through run_loop.sh (upstream MLIR 22 on the CPU),
runs the same network in PyTorch (float64, autograd, the same argument
values bit for bit) and requires, per tensor,
max |mlir - torch| <= rtol * max |torch| (and a non-zero PyTorch gradient).

Usage: check_loops.py MODEL [--form loop|unrolled] [--steps T --batch B
       --width W] [--recompute-gates] [--layers L] [--mlir FILE] [--rtol R]
  --mlir FILE  run this model function instead of the generated one (e.g.
               what remat-opt made of it); the harness is still generated.
Exit status 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Corpus"))
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_loops as gl  # noqa: E402
from check_gradients import arg_values, compare, parse_memrefs  # noqa: E402


def rnn(o, a):
    h0, w = a
    h = h0
    for _ in range(o.steps):
        h = torch.tanh(h @ w)
    return h.sum()


def gru(o, a):
    h0, wz, wh = a
    h = h0
    for _ in range(o.steps):
        z = torch.sigmoid(h @ wz)
        c = torch.tanh(h @ wh)
        h = (1 - z) * h + z * c
    return h.sum()


def scan_layers(o, a):
    h0, ws = a
    h = h0
    for i in range(o.steps):
        h = h + torch.relu(h @ ws[i])
    return (h * h).sum()


def pde(o, a):
    u0, k = a
    dt = float(gl.f32(gl.PDE_DT))
    u = u0
    for _ in range(o.steps):
        p = F.pad(u, (1, 1))
        u = u + dt * (p[:-2] - 2 * u + p[2:] - k * u ** 3)
    return (u * u).sum()


def microbatch(o, a):
    x, t, ws = a[0], a[1], a[2:]
    M, B = x.shape[0], x.shape[1]
    loss = 0
    for k in range(M):
        h = x[k]
        for w in ws[:-1]:
            h = torch.relu(h @ w)
        y = h @ ws[-1]
        loss = loss + ((y - t[k]) ** 2).sum()
    return loss / (M * B)


REFERENCE = {"rnn": rnn, "gru": gru, "scan_layers": scan_layers, "pde": pde,
             "microbatch": microbatch}
# Model result order: which argument each gradient belongs to.
GRADS = {"rnn": ["w", "h0"], "gru": ["wz", "wh", "h0"], "scan_layers": ["ws", "h0"],
         "pde": ["k", "u_init"], "microbatch": ["w1", "w2"]}  # microbatch: w1..wL


def torch_results(model, o):
    g, _, _ = gl.build(model, o)
    args = {}
    for v, init in zip(g.args, g.inits):
        args[v.ssa[1:]] = arg_values(init, v.shape).requires_grad_(True)
    loss = REFERENCE[model](o, list(args.values()))
    loss.backward()
    names = GRADS[model]
    if model == "microbatch":
        names = ["w%d" % l for l in range(1, o.layers + 1)]
    return loss.detach(), [(n, args[n].grad) for n in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=sorted(gl.MODELS))
    ap.add_argument("--form", choices=["loop", "unrolled"], default="loop")
    ap.add_argument("--steps", "-T", type=int)
    ap.add_argument("--batch", "-B", type=int)
    ap.add_argument("--width", "-W", type=int)
    ap.add_argument("--recompute-gates", action="store_true")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--mlir", help="model function to run (default: generated)")
    ap.add_argument("--rtol", type=float, default=1e-4)
    a = ap.parse_args()
    torch.set_num_threads(1)
    o = gl.Opts(a.model, a.form, a.steps, a.batch, a.width, a.recompute_gates,
                a.layers)
    loss, grads = torch_results(a.model, o)
    with tempfile.TemporaryDirectory() as tmp:
        mlir = a.mlir
        if not mlir:
            mlir = os.path.join(tmp, "model.mlir")
            with open(mlir, "w") as fh:
                fh.write(gl.model_text(a.model, o))
        harness = os.path.join(tmp, "harness.mlir")
        with open(harness, "w") as fh:
            fh.write(gl.harness_text(a.model, o))
        res = subprocess.run(["bash", os.path.join(HERE, "run_loop.sh"), mlir, harness],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("check_loops: run_loop.sh failed for %s" % a.model)
    printed = parse_memrefs(res.stdout)
    label = "%s (%s)" % (a.model, gl.cmdline(a.model, o))
    if len(printed) != 1 + len(grads):
        print("%s: %d tensors printed, expected %d FAIL" % (label, len(printed), 1 + len(grads)))
        return 1
    ok = compare("%s: loss" % a.model, *printed[0], loss, a.rtol)
    for (name, g), (shape, vals) in zip(grads, printed[1:]):
        ok &= compare("%s: d%s" % (a.model, name), shape, vals, g, a.rtol)
    print("%s: %s (loss and %d gradients, rtol %g)"
          % (label, "PASS" if ok else "FAIL", len(grads), a.rtol))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
