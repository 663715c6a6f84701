#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks a corpus model's loss and gradients against PyTorch.

Runs the model description of gen_corpus.py through PyTorch (float64, with
autograd; the same argument values, bit for bit), runs the MLIR function
through run_model.sh, and compares the loss and every parameter gradient:
max |mlir - torch| <= rtol * max |torch| per tensor.

Usage: check_gradients.py MODEL [--mlir FILE] [--harness FILE] [--rtol R]
  --mlir FILE  the model function to run (default Inputs/MODEL.mlir), e.g.
               the output of remat-opt; run_model.sh's environment variables
               (MLIR_OPT, LOWER_PASSES, ...) apply.
Exit status 0 when everything matches, 1 otherwise.
"""

import argparse
import math
import os
import re
import subprocess
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_corpus as gc  # noqa: E402  (it puts <repo>/python on sys.path)
from remat_import_torch.argfill import HASH_A, HASH_C, HASH_MASK, hash_values  # noqa: E402


def arg_values(init, shape):
    """The harness's values (see argfill.fill_arg), as float64."""
    if init.kind == "onehot":
        t = torch.zeros(shape, dtype=torch.float64)
        for n in range(shape[0]):
            t[n, (3 * n + 1) % shape[1]] = 1.0
        return t
    i = torch.arange(math.prod(shape), dtype=torch.int64)
    h = (i * HASH_A + init.seed) & HASH_MASK
    h = h ^ (h >> 15)
    h = (h * HASH_C) & HASH_MASK
    h = h ^ (h >> 13)
    u = (h >> 8).to(torch.float32) * torch.tensor(2.0 ** -23, dtype=torch.float32) - 1.0
    v = u * torch.tensor(init.scale, dtype=torch.float32)
    head = hash_values(min(8, v.numel()), init.seed, init.scale)
    assert v[:len(head)].tolist() == head, "torch and gen_corpus disagree on values"
    return v.reshape(shape).to(torch.float64)


class TorchOps(gc.Backend):
    """The layer methods of gen_corpus.MlirOps, in PyTorch."""

    def __init__(self):
        super().__init__()
        self.param_names = []

    def _arg(self, name, shape, init, grad):
        self.inits.append(init)
        if grad:
            self.param_names.append(name)
        return arg_values(init, shape).requires_grad_(grad)

    def dense(self, name, x, w, b=None):
        return x @ w + b if b is not None else x @ w

    def conv(self, name, x, w, b, pad):
        return F.conv2d(x, w, b, padding=pad)

    def relu(self, name, h):
        return F.relu(h)

    def maxpool(self, name, x):
        return F.max_pool2d(x, 2)

    def avgpool(self, name, x):
        return F.avg_pool2d(x, 2)

    def upsample(self, name, x):
        return F.interpolate(x, scale_factor=2, mode="nearest")

    def add(self, name, a, b):
        return a + b

    def concat(self, name, a, b):
        return torch.cat([a, b], dim=1)

    def flatten(self, name, x):
        return x.reshape(x.shape[0], -1)

    def gap(self, name, x):
        return x.mean(dim=(2, 3))

    def xent(self, name, z, t):
        return -(t * F.log_softmax(z, dim=1)).sum() / z.shape[0]

    def mse(self, name, y, t):
        return F.mse_loss(y, t)

    def sqdiff(self, name, a, b):
        return ((a - b) ** 2).sum()


def torch_results(model):
    """(loss, [(parameter name, gradient)]) computed by PyTorch."""
    ops = TorchOps()
    loss = gc.MODELS[model](ops)
    loss.backward()
    return loss.detach(), [(n, p.grad) for n, p in zip(ops.param_names, ops.params)]


NUM = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def parse_memrefs(text):
    """[(sizes, [values])] from printMemrefF32 output."""
    out = []
    for block in text.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        shape = [int(s) for s in sizes.split(",") if s.strip()]
        data = block.split("data =", 1)[1]
        out.append((shape, [float(v) for v in NUM.findall(data)]))
    return out


def run_mlir(model, mlir, harness):
    cmd = [os.path.join(HERE, "run_model.sh"), mlir] + ([harness] if harness else [])
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("check_gradients: run_model.sh failed for %s" % model)
    return parse_memrefs(res.stdout)


def compare(label, shape, got, want, rtol):
    """Prints one line; returns True when got matches want."""
    if list(shape) != list(want.shape):
        print("%s: shape %s, expected %s FAIL" % (label, shape, list(want.shape)))
        return False
    want = want.reshape(-1)
    g = torch.tensor(got, dtype=torch.float64)
    if g.numel() != want.numel():
        print("%s: %d values printed, expected %d FAIL" % (label, g.numel(), want.numel()))
        return False
    scale = want.abs().max().item()
    err = (g - want).abs().max().item()
    if scale == 0:
        print("%s: the PyTorch gradient is zero (degenerate model) FAIL" % label)
        return False
    rel = err / scale
    ok = math.isfinite(rel) and rel <= rtol
    print("%s: %s max|torch| %.3e max rel err %.1e %s"
          % (label, "x".join(map(str, shape)) or "scalar", scale, rel, "ok" if ok else "FAIL"))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=sorted(gc.MODELS))
    ap.add_argument("--mlir", help="model function to run (default Inputs/MODEL.mlir)")
    ap.add_argument("--harness", help="harness (default: run_model.sh's choice)")
    ap.add_argument("--rtol", type=float, default=1e-4)
    args = ap.parse_args()
    torch.set_num_threads(1)

    loss, grads = torch_results(args.model)
    mlir = args.mlir or os.path.join(gc.INPUTS, args.model + ".mlir")
    printed = run_mlir(args.model, mlir, args.harness)
    if len(printed) != 1 + len(grads):
        print("%s: %d tensors printed, expected %d FAIL"
              % (args.model, len(printed), 1 + len(grads)))
        return 1
    ok = compare("%s: loss" % args.model, *printed[0], loss, args.rtol)
    for (name, g), (shape, vals) in zip(grads, printed[1:]):
        ok &= compare("%s: d%s" % (args.model, name), shape, vals, g, args.rtol)
    print("%s: %s (loss and %d gradients, rtol %g)"
          % (args.model, "PASS" if ok else "FAIL", len(grads), args.rtol))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
