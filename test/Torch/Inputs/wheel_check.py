# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The backend from an installed wheel: wheel_check.py SITE.

Says where remat_torch and the remat-opt it runs come from, then compiles
the MLP of backend_models (copied here: the test directory is not on the
path) with the eager compiler at min and compares its gradients with
eager PyTorch's."""

import os
import sys

import torch
import torch.nn as nn

site = os.path.realpath(sys.argv[1])
import remat_torch  # noqa: E402
from remat_torch.planner import find_remat_opt  # noqa: E402

where = "the wheel" if os.path.realpath(remat_torch.__file__).startswith(site) else "elsewhere"
tool = find_remat_opt() or ""
tool_where = "the wheel" if os.path.realpath(tool).startswith(site) else "elsewhere (%s)" % tool
print("remat_torch from %s; remat-opt from %s" % (where, tool_where))

torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))
x = torch.randn(512, 64)
model(x).sum().backward()
ref = [p.grad.clone() for p in model.parameters()]
model.zero_grad(set_to_none=True)
log = []
compiled = torch.compile(model, backend=remat_torch.backend("min", "eager", log=log))
compiled(x).sum().backward()
got = [p.grad for p in model.parameters()]
falls = [e["fallback"] for e in log if "fallback" in e]
same = all(torch.allclose(g, r, rtol=1e-5, atol=1e-6) for g, r in zip(got, ref))
print("MLP at min: %s, %s, gradients %s" % (
    "planned" if log and not falls else "NOT planned", "fell back: %s" % falls if falls
    else "no fallback", "match" if same else "DIFFER"))
