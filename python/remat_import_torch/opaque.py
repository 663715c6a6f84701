# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat.op: an ATen node as one opaque op with its result types and an
analytic cost.  Every node in planning-only mode; otherwise the fallback
for ops without an executable lowering (the function plans but does not
lower)."""

from . import cost as costmod
from .graph import RANDOM, VIEWS, meta_shape, tuple_shapes
from .lowering.registry import Unsupported
from .mlir import V, float_text


def result_specs(node):
    """([(shape, elt) or None per result], is_tuple)."""
    ms = meta_shape(node)
    if ms:
        return [ms], False
    ts = tuple_shapes(node)
    if not ts:
        raise Unsupported("no shape for %s" % node.name)
    n = max(ts) + 1
    return [ts.get(i) for i in range(n)], True


def tensor_inputs(em, node):
    """The distinct tensor values a node reads (its data dependencies)."""
    ins = []
    batch_norm = "batch_norm" in str(node.target)
    for a in node.args + tuple(node.kwargs.values()):
        for x in (a if isinstance(a, (list, tuple)) else [a]):
            if hasattr(x, "op"):
                p = em.primal_of.get(x)
                if batch_norm and p is not None and p.kind == "buffer":
                    continue  # running statistics: not a data dependency
                v = em.get(x)
                if isinstance(v, V) and v not in ins:
                    ins.append(v)
    return ins


def opaque(em, loc, opname, ins, specs, random=False, time=None):
    """Emits one remat.op; it is a planner node of its own."""
    outs = [em.f.value(loc, s, e) for s, e in specs]
    nbytes = sum(o.nbytes for o in outs)
    if time is None:
        time = float(sum(o.numel for o in outs))
    attrs = "cost = #remat.cost<time = %s, bytes = %d>%s" % (
        float_text(max(time, 0.0)).replace("inf", "0.0"), nbytes,
        ", random" if random else "")
    em.f.op(outs, 'remat.op "%s"(%s) {%s} : (%s) -> (%s)'
            % (opname, ", ".join(v.ssa for v in ins), attrs,
               ", ".join(v.ty for v in ins), ", ".join(o.ty for o in outs)), loc)
    em.loc_work[loc] = time
    em.planner_nodes.append(loc)
    return outs


def opaque_like(em, node, opname, ins, time=None, random=False):
    """One remat.op named after `node` with its results (a value, or a
    tuple with None where the node has no tensor), reading `ins`; its
    time the emitter's estimate for the node (`node_time`: its FLOPs)
    unless given."""
    specs, is_tuple = result_specs(node)
    present = [(i, s) for i, s in enumerate(specs) if s is not None]
    if time is None:
        time = em.node_time(node, [s for _, s in present])
    outs = opaque(em, node.name, opname, ins, [s for _, s in present], random=random, time=time)
    if not is_tuple:
        return outs[0]
    res = [None] * len(specs)
    for (i, _), o in zip(present, outs):
        res[i] = o
    return tuple(res)


def opaque_node(em, node, name):
    """The node as a remat.op named after its overload packet (aten.convolution)."""
    opname = name.rsplit(".", 1)[0] if name.endswith((".default", ".Tensor", ".int", ".Scalar")) else name
    return opaque_like(em, node, opname, tensor_inputs(em, node),
                       random=name in RANDOM or "bernoulli" in name or "rand" in name)


def planning_value(em, node, name):
    """Planning-only mode: views alias their input, every other op is a remat.op."""
    if name in VIEWS:
        src = em.vals.get(node.args[0])
        if src is None:  # a constant (get_attr), made where first read
            src = em.get(node.args[0])
        if name in ("aten.split.Tensor", "aten.split_with_sizes.default", "aten.unbind.int"):
            n = len(tuple_shapes(node)) or 1
            return tuple([em.get(node.args[0])] * max(n, max(tuple_shapes(node) or [0]) + 1))
        return em.get(node.args[0]) if not isinstance(src, V) else src
    return opaque_node(em, node, name)
