# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Inductor's fusions as the plan's ops: a pointwise chain and its reader, one op.

Inductor inlines a pointwise op into the kernel of each op that reads it:
its value is never stored, and its inputs are read where the reader runs.
Counted as one buffer per ATen op, a joint graph's memory model is well
over what Inductor's code allocates (Llama in benchmarks/torch with no
recomputation: 293.2 MB in the model, 234.5 MB measured; its loss's
gradient alone holds three logit-sized values where Inductor stores one),
and the planner, told those numbers, cuts more than the step needs (at
143.5 MB asked its plans measured 117 to 154 MB, not in the order of
their budgets, and the one kept recomputed 20 matmuls).

A fusion group is a generated kernel's node (pointwise or a reduction:
its root) with the pointwise nodes it inlines: those whose every reader,
looking through views, is the root or another of its members.  A
pointwise value read by several kernels is a member of each of their
groups (Inductor computes it in each) while it reads few inputs.  The
emitter writes each group as one remat.op that reads the group's inputs
and yields the root's value (emit.py), so the plan keeps, frees or
recomputes a group as a whole, as Inductor runs it; partition.py puts the
members back into the plan's order right before each run of their root.
A value read by an op Inductor runs as an ATen call (a matmul, a
convolution, a fallback) is stored, a root or a value of its own.
"""

import torch

from remat_import_torch.graph import ALIASES, VIEWS

from .batch_norm import buffer_updates, is_buffer_copy
from .node_kinds import COPIES, is_random
from .inductor import runs_aten_kernel

READS_INLINED = 4   # Inductor's realize_reads_threshold (config.py)

# Ops Inductor lowers to pointwise code that has no pointwise tag: tensor
# factories (a constant or an index expression, loading nothing) and
# indirect loads (a gather, an embedding, an index: one load of the
# indexed value at the index read).  A log-softmax read by the loss's
# gather is computed inside the gather's kernel at the labels alone.
_FACTORIES = {"aten.full.default", "aten.scalar_tensor.default", "prims.iota.default",
              "aten.arange.default", "aten.arange.start", "aten.arange.start_step",
              "aten.zeros.default", "aten.ones.default"}
INDIRECT = {"aten.gather.default", "aten.embedding.default", "aten.index.Tensor"}

# Views Inductor folds into the indexing of the kernel that reads them (a
# tuple's split aside): a pointwise value viewed is still fused.
FOLDED = (VIEWS | ALIASES) - COPIES - {"aten.split.Tensor", "aten.split_with_sizes.default",
                                      "aten.unbind.int"}


def _tagged(node, tag):
    return node.op == "call_function" and tag in getattr(node.target, "tags", ())


def _pointwise(node):
    return _tagged(node, torch.Tag.pointwise) or (
        node.op == "call_function" and str(node.target) in _FACTORIES | INDIRECT)


def _generated(node):
    """A node Inductor computes in a kernel it generates, reading its
    inputs there (pointwise, or a reduction's loop)."""
    return ((_pointwise(node) or _tagged(node, torch.Tag.reduction))
            and not runs_aten_kernel(node) and not is_random(node) and str(node.target) not in COPIES)


def generated_pointwise(node):
    """A node with PyTorch's pointwise tag that Inductor computes in a
    kernel it generates: one that may write its result over an input (an
    indirect load reads its input at other positions, a factory reads
    none)."""
    return _generated(node) and _tagged(node, torch.Tag.pointwise)


def _readers(node):
    """The nodes that read `node`, looking through the views of it."""
    for u in node.users:
        if u.op == "call_function" and str(u.target) in FOLDED:
            yield from _readers(u)
        else:
            yield u


def _classify(nodes, keep):
    """{member: its roots} with the nodes in `keep` stored (one pass,
    readers first)."""
    roots_of = {}
    for n in reversed(nodes):
        if n in keep or not _generated(n) or not _pointwise(n) or not n.users:
            continue
        roots = set()
        for u in _readers(n):
            roots.update(roots_of.get(u, (u,)))
        if all(_generated(r) for r in roots):
            roots_of[n] = roots
    return roots_of


def base(node):
    """What a view reads, through views."""
    while node.op == "call_function" and str(node.target) in FOLDED and node.all_input_nodes:
        node = node.all_input_nodes[0]
    return node


def _over_read(nodes, roots_of):
    """Members read by several ops whose inlined code loads more than
    READS_INLINED stored values.  Inductor lowers in the graph's order and
    stores such a value (its readers then load it alone), so each is found
    with the ones before it stored.  A factory loads nothing."""
    loads, over = {}, set()
    for n in nodes:
        if n not in roots_of:
            continue
        got = set()
        for a in n.all_input_nodes:
            b = base(a)
            got |= loads[b] if b in loads else {b}
        if len(set(_readers(n))) > 1 and len(got) > READS_INLINED:
            over.add(n)
        else:
            loads[n] = got
    return over


def fusion_groups(jg):
    """{member: (its roots, in the graph's order)} of every pointwise node
    that Inductor computes inside the kernels that read it (transitively:
    a member's roots are its readers' groups).  A value read by several
    kernels is inlined into each while its code loads few stored values
    (Inductor's `realize_reads_threshold`), else stored once.  The
    graph's outputs, the buffer updates and copies (arguments: emit.py)
    stay values of their own.  A member may be a forward value read by a
    backward kernel (a loss's mask read by its gradient): the group runs
    where its root does."""
    nodes = list(jg.gm.graph.nodes)
    keep = {n for n in jg.fwd_outputs if n is not None} | {n for n in jg.grads if n is not None}
    keep |= set(buffer_updates(jg)) | {n for n in nodes if is_buffer_copy(n)}
    while True:    # a value stored changes its inputs' groups and what its readers load
        roots_of = _classify(nodes, keep)
        over = _over_read(nodes, roots_of)
        if not over:
            break
        keep |= over
    index = {n: i for i, n in enumerate(nodes)}
    return {n: tuple(sorted(rs, key=index.get)) for n, rs in roots_of.items()}


def members_by_root(roots_of, graph):
    """{root: its members in the graph's order}."""
    out = {}
    for n in graph.nodes:
        for r in roots_of.get(n, ()):
            out.setdefault(r, []).append(n)
    return out


def expand(order, members, named, start):
    """The plan's order with each group's members right before each run of
    its root, `named` with the members of every group it names, and the
    backward phase's start in the new order (`start` in the plan's: the
    members of its first backward run are backward too, a forward value
    among them recomputed there, not saved).  In the forward phase a
    member read by several groups is run once, at its first: Inductor
    inlines it into each kernel either way, and the forward keeps
    PyTorch's order where it can (partition.py); in the backward each run
    of a root gets its own."""
    by_name = {r.name: [m.name for m in ms] for r, ms in members.items()}
    out, forward, new_start = [], set(), None
    for i, name in enumerate(order):
        if i == start:
            new_start = len(out)
        for m in by_name.get(name, ()):
            if i < start:
                if m in forward:
                    continue
                forward.add(m)
            out.append(m)
        out.append(name)
    named = set(named)
    for r, ms in by_name.items():
        if r in named:
            named.update(ms)
    return out, named, len(out) if new_start is None else new_start
