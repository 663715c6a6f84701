# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Forward values the plan keeps into the backward and recomputes later.

A plan may keep a forward value past the loss for the first backward-phase
ops that read it, free it, and recompute it for later readers (remat's
rewritten step then reads the forward's copy in a recompute region's
inputs).  Computed once, early, in the backward graph, the value would be
recomputed with its whole chain before the plan does and held (a tiny
GPT-2 at `min` measured 57,672 B over its budget so).  Such a value is
saved instead, for every reader: the backward graph holds it from the
forward to its last reader, where the plan frees it between its first
readers and its recomputation (the same GPT-2: 8,008 B over, its size).
Reading the saved copy early and a recomputed one late would need a copy
of each reader that runs on both sides of the recomputation.
"""


def _root(p, named):
    """The node with an op of its own that the FX input p aliases."""
    while p.op == "call_function" and p.name not in named and p.all_input_nodes:
        p = p.all_input_nodes[0]
    return p


def read_before_recomputed(jg, order, start, named):
    """Forward values (nodes with an op of their own) that a backward-phase
    op reads before the plan's first backward-phase run of them."""
    nodes = jg.nodes()
    first, early = set(), set()
    for name in order[start:]:
        n = nodes.get(name)
        if n is None:
            continue
        for p in n.all_input_nodes:
            a = _root(p, named)
            if a.op == "call_function" and a.name in named and a not in first:
                early.add(a)
        first.add(n)
    return early & first
