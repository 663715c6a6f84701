# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Forward values the plan keeps into the backward and recomputes later.

A plan may keep a forward value past the loss for the first backward-phase
ops that read it, free it, and recompute it for later readers (remat's
rewritten step then reads the forward's copy in a recompute region's
inputs).  Computed once, early, in the backward graph, the value would be
recomputed with its whole chain before the plan does and held (a tiny
GPT-2 at `min` measured 57,672 B over its budget so).

split_recomputations gives such a value a second node of the joint graph,
its recomputation, read by the readers that run after it: the backward
graph then reads the saved value before and the recomputed copy after, as
the plan does, and frees the saved one after its last earlier reader.  A
value it cannot split (a tuple's, a random op's, a reader that runs on both
sides of the recomputation) is saved for every reader: the backward graph
holds it from the forward to its last reader, where the plan frees it
between its first readers and its recomputation (the same GPT-2: 8,008 B
over, its size).
"""

from .node_kinds import is_random


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


def _side(user, at, runs, named):
    """Whether `user` (a node of its own) runs only before position `at`
    of the order ("before"), only after it ("after"), or on both sides
    ("both"); None for an alias (its readers decide) or a node the order
    never runs."""
    if user.op != "call_function":
        return "before"          # the graph's output: the forward's
    if user.name not in named:
        return None
    pos = runs.get(user.name)
    if not pos:
        return None
    if all(p > at for p in pos):
        return "after"
    if all(p < at for p in pos):
        return "before"
    return "both"


class _Split:
    """One value split at position `at` of the order: `again` maps each
    node that has runs after `at` and reads the value (directly, through
    aliases or through other such nodes) to its copy for those runs."""

    def __init__(self, graph, at, runs, named):
        self.graph, self.at, self.runs, self.named = graph, at, runs, named
        self.again, self.moves = {}, []     # moves: (reader, input) to redirect

    def side_of_alias(self, alias):
        """The sides of every node of its own that reads `alias`."""
        sides = set()
        for u in alias.users:
            side = _side(u, self.at, self.runs, self.named)
            sides |= self.side_of_alias(u) if side is None and u.op == "call_function" \
                and u.name not in self.named else {side}
        return sides

    def plan(self, node):
        """Marks `node` (the value, or a node run on both sides) as copied
        and plans its readers; False when one cannot be placed."""
        self.again[node] = None
        for u in node.users:
            if u.op == "call_function" and u.name not in self.named:
                sides = self.side_of_alias(u)
                if None in sides:
                    return False
                if sides <= {"before"}:
                    continue
                if sides == {"after"}:
                    self.moves.append((u, node))
                    continue
                if not self.plan(u):             # an alias read on both sides
                    return False
                continue
            side = _side(u, self.at, self.runs, self.named)
            if side == "after":
                self.moves.append((u, node))
            elif side == "both":
                if u not in self.again and not self.plan(u):
                    return False
            elif side is None:
                return False
        return True

    def apply(self):
        """Makes the copies (each right after its original, so after its
        inputs' copies) and redirects the readers that run after."""
        for n in [n for n in self.graph.nodes if n in self.again]:
            with self.graph.inserting_after(n):
                self.again[n] = self.graph.node_copy(
                    n, lambda a: self.again.get(a) or a)
        for reader, src in self.moves:
            reader.replace_input_with(src, self.again[src])


def split_recomputations(jg, order, start, named):
    """Splits each value read before its backward-phase recomputation (see
    above): the saved node for the runs before, a copy for the runs from
    its recomputation on, and likewise every node reading it that runs on
    both sides.  Rewrites jg's graph; returns (the new order, the new
    named set)."""
    order, named = list(order), set(named)
    graph = jg.gm.graph
    position = {n: i for i, n in enumerate(graph.nodes)}
    tried = set()
    while True:
        # Again after each split: a split renames later runs of other nodes.
        todo = sorted((v for v in read_before_recomputed(jg, order, start, named)
                       if v not in tried), key=lambda n: position.get(n, -1))
        if not todo:
            break
        v = todo[0]
        tried.add(v)
        if is_random(v):
            continue
        at = next((i for i in range(start, len(order)) if order[i] == v.name), None)
        if at is None:
            continue
        runs = {}
        for i, name in enumerate(order):
            runs.setdefault(name, []).append(i)
        # No reader runs at `at` itself: order[at] is v.
        split = _Split(graph, at, runs, named)
        if not split.plan(v):
            continue
        split.apply()
        for n, c in split.again.items():
            if n.name in named:
                named.add(c.name)
                order[at:] = [c.name if x == n.name else x for x in order[at:]]
    graph.lint()
    jg.gm.recompile()
    return order, named
