# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A graph rebuilt in the order of remat's plan.

PyTorch's `_extract_fwd_bwd_modules` copies the backward's nodes in the
joint graph's order, where every recomputed forward node comes before the
first backward node: run as is, all recomputations would happen at the
start of the backward and live until their last use.  Here each node is
placed where the plan runs it; a node the plan runs several times in the
backward is computed that many times, each reader using the newest copy,
as the rewritten MLIR does.  Nodes without an op of their own (views,
aliases) are made right before their first reader, and again from a
newer copy of what they view; a tuple's getitems right after it.  The forward graph is rebuilt the
same way where the plan recomputes in the forward phase.
"""

import operator

import torch.fx as fx


def schedule_graph(gm: fx.GraphModule, order) -> fx.GraphModule:
    """gm's nodes in `order` (FX node names, one entry per run); nodes the
    order does not name come where their first reader needs them (those
    nothing reads, such as a buffer's copy_, at the end), and the output
    last."""
    old = {n.name: n for n in gm.graph.nodes}
    runs = {}
    for name in order:
        n = old.get(name)
        if n is not None and n.op == "call_function":
            runs[n] = runs.get(n, 0) + 1
    g = fx.Graph()
    env, made_from = {}, {}     # old node -> newest copy; copy -> its inputs' copies
    done = {}                   # old node -> runs made so far

    def value(n):
        """The newest copy of n, made (with what it reads) if it is due."""
        if n in env and n not in runs and n.op == "call_function":
            # An alias: stale when what it reads has a newer copy.
            if made_from[env[n]] != tuple(value(a) for a in n.all_input_nodes):
                del env[n]
        if n not in env:
            make(n)
        return env[n]

    def make(n):
        for a in n.all_input_nodes:
            value(a)
        c = g.node_copy(n, lambda a: env[a])
        made_from[c] = tuple(env[a] for a in n.all_input_nodes)
        env[n] = c
        done[n] = done.get(n, 0) + 1
        # A tuple's elements right away: the tuple would keep every element
        # alive until its last getitem.
        for u in n.users:
            if u.target is operator.getitem:
                make(u)

    for n in gm.graph.nodes:
        if n.op == "placeholder":
            env[n] = g.node_copy(n)
    for name in order:
        n = old.get(name)
        if n is None or n not in runs or done.get(n, 0) >= runs[n]:
            continue
        for a in n.all_input_nodes:
            value(a)
        make(n)
    out = next(n for n in gm.graph.nodes if n.op == "output")
    for n in gm.graph.nodes:
        if n.op == "call_function" and n not in env:
            value(n)
    g.node_copy(out, value)
    g.eliminate_dead_code()
    g.lint()
    return fx.GraphModule(gm, g)
