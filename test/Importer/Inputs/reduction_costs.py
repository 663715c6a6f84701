# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints each reduction's estimated cost against the elements it reads."""

import math

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from remat_import_torch import cost


def step(x):
    var, mean = torch.ops.aten.var_mean.correction(x, [2], correction=0, keepdim=True)
    top = torch.ops.aten.amax.default(x, [-1], True)
    vals, idx = torch.ops.aten.max.dim(x, 1)
    return (var + mean + top, vals, idx, torch.ops.aten.logsumexp.default(x, [0]),
            torch.ops.aten.linalg_vector_norm.default(x))


gm = make_fx(step)(torch.randn(4, 8, 16))
for node in gm.graph.nodes:
    if node.op != "call_function" or not str(node.target).startswith(
            ("aten.var_mean", "aten.amax", "aten.max", "aten.logsumexp", "aten.linalg")):
        continue
    outs = node.meta["val"] if isinstance(node.meta["val"], tuple) else (node.meta["val"],)
    specs = [(list(v.shape), v.dtype) for v in outs]
    reads = math.prod(node.args[0].meta["val"].shape)
    got = cost.flops(node, specs)
    print("%s reads %d elements, costs %g: %s" % (node.target, reads, got,
                                                  "ok" if got >= reads else "BELOW ITS READS"))
