#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One training step, three ways in: what remat-opt plans from each.

  ways_in.py [--bin build/bin] [--work DIR]

The step: an 8-layer tanh MLP (64 -> 128 x 7 -> 10), batch 1024,
cross-entropy over 10 classes, the gradients of every parameter; written
as test/Jax/Inputs/models.py:mlp writes it. Three ways to remat-opt's
input:
- remat-import-torch (the same model as an nn.Sequential, --loss xent);
- torch-mlir: make_fx of the step with torch-mlir's decompositions, then
  fx.stateless_fx_import to linalg on tensors. Integer-label
  cross-entropy's gradient is a tm_tensor.scatter there (printed in
  generic form, planned with --allow-unregistered-dialect as an opaque op);
  a one-hot loss (labels compared with arange) is all linalg;
- remat-import-jax (jax.value_and_grad, jaxlib's passes).
Each is planned with `remat-opt --remat-budget=min`; prints the planner's
op count, the peak as written and the smallest budget. torch-mlir is not
in the project's environment: install it apart and put it on PYTHONPATH,
e.g. `pip install --no-deps -t /tmp/tmlib torch-mlir==20261001`; without
it its rows say so.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

MODEL = '''from torch import nn
class MLP(nn.Sequential):
    def __init__(self):
        sizes = [64] + [128] * 7 + [10]
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.Tanh()]
        super().__init__(*layers[:-1])
'''

TORCH_MLIR = MODEL + '''
import sys, torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch_mlir import fx
from torch_mlir.extras.fx_decomp_util import get_decomposition_table

torch.manual_seed(0)
model = MLP()
names = [n for n, _ in model.named_parameters()]
params = [p.detach() for p in model.parameters()]
x, y = torch.randn(1024, 64), torch.randint(0, 10, (1024,))
onehot = sys.argv[1] == "onehot"

def step(x, y, *ps):
    ps = [p.requires_grad_() for p in ps]
    out = torch.func.functional_call(model, dict(zip(names, ps)), (x,))
    if onehot:
        hot = (y[:, None] == torch.arange(10)).to(torch.float32)
        loss = -(hot * out.log_softmax(-1)).sum(-1).mean()
    else:
        loss = torch.nn.functional.cross_entropy(out, y)
    return (loss, *torch.autograd.grad(loss, ps))

gm = make_fx(step, decomposition_table=get_decomposition_table())(x, y, *params)
m = fx.stateless_fx_import(gm, output_type="linalg-on-tensors")
print(m.operation.get_asm(print_generic_op_form=True))
'''


def plan(remat_opt, step, work, tag, extra=()):
    report = os.path.join(work, tag + ".json")
    res = subprocess.run([remat_opt, step, "--remat-budget=min", "--remat-report=" + report,
                          "-o", os.devnull, *extra], capture_output=True, text=True)
    if res.returncode != 0:
        return {"error": (res.stderr.strip().splitlines() or ["failed"])[-1]}
    with open(report) as fh:
        r = json.load(fh)["functions"][0]
    return {"ops": r["ops"], "peak": r["peak_before"], "min": r["peak_after"]}


def import_torch(a, work):
    path = os.path.join(work, "mlp.py")
    with open(path, "w") as fh:
        fh.write(MODEL)
    out = os.path.join(work, "torch.mlir")
    subprocess.run([os.path.join(a.bin, "remat-import-torch"), path + ":MLP", "--batch", "1024",
                    "--input-shape", "64", "--loss", "xent", "--num-classes", "10", "-o", out],
                   check=True, capture_output=True)
    return out


def import_torch_mlir(work, loss):
    path = os.path.join(work, "tm.py")
    with open(path, "w") as fh:
        fh.write(TORCH_MLIR)
    out = os.path.join(work, "torch-mlir-%s.mlir" % loss)
    with open(out, "w") as fh:
        res = subprocess.run([sys.executable, path, loss], stdout=fh, stderr=subprocess.PIPE,
                             text=True)
    if res.returncode != 0:
        return None, (res.stderr.strip().splitlines() or ["failed"])[-1]
    return out, None


def import_jax(a, work):
    out = os.path.join(work, "jax.mlir")
    subprocess.run([os.path.join(a.bin, "remat-import-jax"),
                    os.path.join(ROOT, "test/Jax/Inputs/models.py") + ":mlp", "-o", out],
                   check=True, capture_output=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(ROOT, "build/bin"))
    p.add_argument("--work", help="keep the steps here (default: a temporary folder)")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="ways-in-")
    os.makedirs(work, exist_ok=True)
    opt = os.path.join(a.bin, "remat-opt")
    rows = [("remat-import-torch (xent)", plan(opt, import_torch(a, work), work, "torch"))]
    for loss in ("xent", "onehot"):
        step, why = import_torch_mlir(work, loss)
        rows.append(("torch-mlir (%s)" % loss,
                     {"error": why} if why else
                     plan(opt, step, work, "tm-" + loss, ["--allow-unregistered-dialect"])))
    rows.append(("remat-import-jax (one-hot xent)", plan(opt, import_jax(a, work), work, "jax")))
    print("| way in | planner ops | peak as written (B) | smallest budget (B) | % |")
    print("|---|---:|---:|---:|---:|")
    for name, r in rows:
        if "error" in r:
            print("| %s | %s | | | |" % (name, r["error"]))
        else:
            print("| %s | %d | %d | %d | %.1f |" % (name, r["ops"], r["peak"], r["min"],
                                                   100.0 * r["min"] / r["peak"]))


if __name__ == "__main__":
    main()
