# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sums of select_backward over distinct indices, as one scatter chain.

The backward of `x.select(d, 0), x.select(d, 1), ...` (PyTorch 2.x's
`nn.MultiheadAttention` splits q, k and v so) is one `select_backward`
per index, each a zero tensor of x's whole shape with one index filled,
added together. Written so, every term is a whole buffer and the adds
hold several at once (three [3, ...] tensors for q, k and v). Each term is
zero outside its own index, so adding a term at a new index is writing
that index: `add(select_backward(a, S, d, i), select_backward(b, S, d, j))`
is `select_scatter(select_backward(a, S, d, i), b, d, j)` for i != j,
exactly (x + 0 == x), and a chain of such adds becomes one buffer filled
index by index, as the forward's `chunk` gave.
"""

import torch

aten = torch.ops.aten


def _select_backward(node):
    """(grad, sizes, dim, index) of a select_backward with one user."""
    if node.op != "call_function" or node.target != aten.select_backward.default \
            or len(node.users) != 1:
        return None
    grad, sizes, dim, index = node.args[:4]
    dim %= len(sizes)
    return grad, list(sizes), dim, index % sizes[dim]


def fold_select_backward_sums(graph):
    """Rewrites every add of select_backward terms over distinct indices of
    the same shape and dim into a select_scatter chain; returns how many
    adds it rewrote."""
    # node -> (sizes, dim, indices written) for chains built so far.
    chains = {}
    rewritten = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target != aten.add.Tensor \
                or len(node.args) != 2 or node.kwargs.get("alpha", 1) != 1:
            continue
        lhs, rhs = node.args
        if not hasattr(lhs, "op") or not hasattr(rhs, "op"):
            continue
        base = chains.get(lhs)
        if base is None:
            first = _select_backward(lhs)
            base = (first[1], first[2], {first[3]}) if first else None
        term = _select_backward(rhs)
        if base is None or term is None:
            # The other order: the chain on the right.
            base = chains.get(rhs)
            if base is None:
                first = _select_backward(rhs)
                base = (first[1], first[2], {first[3]}) if first else None
            term = _select_backward(lhs)
            lhs, rhs = rhs, lhs
        if base is None or term is None:
            continue
        sizes, dim, written = base
        grad, tsizes, tdim, index = term
        if tsizes != sizes or tdim != dim or index in written or \
                len(lhs.users) != 1:
            continue
        with graph.inserting_before(node):
            scatter = graph.call_function(aten.select_scatter.default,
                                          (lhs, grad, dim, index))
        scatter.meta = dict(node.meta)
        node.replace_all_uses_with(scatter)
        graph.erase_node(node)
        graph.erase_node(rhs)
        chains[scatter] = (sizes, dim, written | {index})
        rewritten += 1
    return rewritten
