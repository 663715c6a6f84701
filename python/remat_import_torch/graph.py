# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the importer reads off the FX joint graph: the ATen ops it treats
specially, each node's result shapes (AOTAutograd's metadata), ATen's
int-or-list arguments, and which nodes the training step needs."""

import torch

from .mlir import elt_of_name

# Ops that only alias their first argument.
ALIASES = {"aten.detach.default", "aten.alias.default", "aten.clone.default",
           "aten.lift_fresh_copy.default", "aten.contiguous.default"}
# Views: no storage of their own (planning-only mode aliases them).
VIEWS = {"aten.view.default", "aten._reshape_alias.default", "aten._unsafe_view.default",
         "aten.reshape.default", "aten.t.default", "aten.transpose.int",
         "aten.permute.default", "aten.expand.default", "aten.slice.Tensor",
         "aten.select.int", "aten.squeeze.dim", "aten.unsqueeze.default",
         "aten.squeeze.default", "aten.split.Tensor", "aten.split_with_sizes.default",
         "aten.unbind.int"}
# Ops that draw random numbers: their remat.op is marked `random`, so the
# planner never recomputes them.
RANDOM = {"aten.bernoulli_.float", "aten.bernoulli.p", "aten.bernoulli.default",
          "aten.randn.default", "aten.rand.default", "aten.rand_like.default",
          "aten.randn_like.default", "aten.uniform_.default", "aten.normal_.default",
          "aten.native_dropout.default"}


def elt_of(dtype):
    return elt_of_name(str(dtype).replace("torch.", ""))


def meta_shape(node):
    """(shape, elt) of a tensor-valued node, or None."""
    tm = node.meta.get("tensor_meta")
    if tm is not None and hasattr(tm, "shape"):
        return list(tm.shape), elt_of(tm.dtype)
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        return list(val.shape), elt_of(val.dtype)
    return None


def tuple_shapes(node):
    """{index: (shape, elt)} of a tuple-valued node, from its getitem users."""
    out = {}
    for u in node.users:
        if u.op == "call_function" and getattr(u.target, "__name__", "") == "getitem":
            ms = meta_shape(u)
            if ms:
                out[u.args[1]] = ms
    return out


def pair(v, default=None):
    """An ATen int-or-list argument (kernel, stride, padding) as 2 ints."""
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return default
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    return v * 2 if len(v) == 1 else v


def live_nodes(joint, probes):
    """The nodes the loss, a parameter gradient or a probe depends on: the
    joint graph also computes buffer updates and unused gradients."""
    live = set()
    roots = [joint.loss] + [g for p, g in zip(joint.primals, joint.grads)
                            if g is not None and p.kind == "param"]
    roots += [n for n in joint.graph_module.graph.nodes if n.name in probes]
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in live or not hasattr(n, "op"):
            continue
        live.add(n)
        stack.extend(n.all_input_nodes)
    return live
