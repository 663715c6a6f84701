# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The joint graph of torch.compile as one func.func for remat-opt.

The importer's Emitter in planning-only mode: every ATen node is one
remat.op named after its FX node (loc("addmm_1")), views alias what they
view, as PyTorch allocates.  What differs from an imported training step:
the tangents are arguments (the backward of a graph starts from the
gradients of its outputs, not from a scalar loss), and the forward outputs
are results.  remat's forward is what the loss depends on, so the loss is
one more remat.op, `forward_outputs`, reading every forward output (a
scalar, 64 bytes, no work): everything the graph returns to the forward is
then forward, and everything else the backward.  And a `clone` is a copy,
as in PyTorch, not an alias; ops whose CPU kernels allocate temporaries
carry them as the op's workspace.

Buffer updates (a batch norm's new running mean and variance, its
`num_batches_tracked + 1`: batch_norm.py) are forward outputs too, but
small and read by nothing in the step: read by `forward_outputs` they would
stay live from each batch norm to the forward's end, crossing every point
where the forward is one tensor wide, and the chain strategies could not
cut it.  They are arguments instead: live throughout, a few bytes per
channel more than PyTorch holds (which frees them once copied into the
buffers, before the backward), never less; so are the copies of the
buffers each batch norm reads.
"""

import math
import re
import statistics

import torch

from remat_import_torch.emit import Emitter
from remat_import_torch.graph import meta_shape
from remat_import_torch.lowering import Unsupported
from remat_import_torch.mlir import ELT_BYTES, V
from remat_import_torch.opaque import opaque, opaque_like, result_specs, tensor_inputs
from remat_import_torch import cost as costmod

from .batch_norm import buffer_updates, is_buffer_copy
from . import fusion
from .fusion import members_by_root
from .node_kinds import COPIES, is_random
from .op_times import measure_times
from .workspace import measure_all

LOSS_LOC = "forward_outputs"


def _nbytes(n):
    v = n.meta.get("val") if hasattr(n, "meta") else None
    return v.numel() * v.element_size() if isinstance(v, torch.Tensor) else 0


def workspace(node):
    """Temporary bytes PyTorch's CPU kernels allocate inside the op (oneDNN
    reorders, as measured with the profiler: about one activation for a
    convolution and a batch norm's backward, two for a convolution's
    backward), so that the plan's peak counts them."""
    name = str(node.target)
    if name == "aten.convolution.default":
        return _nbytes(node) + _nbytes(node.args[1])
    if name == "aten.convolution_backward.default":
        return 2 * _nbytes(node.args[0])
    if name == "aten.native_batch_norm_backward.default":
        return _nbytes(node.args[1])
    return 0


def _moved_bytes(nodes, out_specs):
    """Bytes the kernel computing `nodes` (a group, its root last) loads
    and stores: each value it reads from outside once, at most the base
    a view of it reads (a broadcast weight) and at most the view (a slice
    of a larger value); an indirect load's source (an embedding's table)
    at the rows it gathers, its result's bytes, and under an indirect root
    every load at those rows (the loss's log-softmax computed at its
    labels alone); and the results, out_specs [(shape, elt)]."""
    inside, reads = set(nodes), {}
    root = nodes[-1]
    cap = _nbytes(root) if str(root.target) in fusion.INDIRECT else None
    for n in nodes:
        for a in n.all_input_nodes:
            if a in inside or fusion.base(a) in inside:
                continue
            b = _nbytes(n) if (a is n.args[0] and str(n.target) in fusion.INDIRECT) \
                else min(_nbytes(a), _nbytes(fusion.base(a)) or _nbytes(a))
            reads[a] = max(reads.get(a, 0), b if cap is None else min(b, cap))
    out = sum(math.prod(shape) * ELT_BYTES.get(elt, 4) for shape, elt in out_specs)
    return sum(reads.values()) + out


def _same_buffer(a, b):
    """Whether FX values a and b have one buffer's shape, strides and dtype
    (what Inductor's buffer_reuse_key and a same-index read ask of an
    in-place write)."""
    va, vb = (n.meta.get("val") for n in (a, b))
    return (isinstance(va, torch.Tensor) and isinstance(vb, torch.Tensor)
            and va.shape == vb.shape and va.dtype == vb.dtype
            and va.stride() == vb.stride())


class JointEmitter(Emitter):
    def __init__(self, jg, groups=None, in_place=False):
        super().__init__(jg.importer_joint(), name="step", planning_only=True)
        self.jg = jg
        self.in_place = in_place   # Inductor's kernels write over inputs they free
        self.root_of = groups or {}   # fused member -> its groups' roots (fusion.py)
        self.members = members_by_root(self.root_of, jg.gm.graph)
        self.measured = {}    # node -> its kernel's measured workspace (workspace.py)
        # Arguments as well as the primals and tangents: the buffer updates
        # and the copies of the buffers batch norms read (batch_norm.py).
        self.updates = buffer_updates(jg) + [n for n in jg.gm.graph.nodes
                                             if is_buffer_copy(n)]

    def _arguments(self):
        self.primal_of = {p.node: p for p in self.j.primals}
        for p in self.j.primals:
            self._make_arg(p)
        for t in self.jg.tangents:
            shape, elt = meta_shape(t)
            self.vals[t] = self.f.arg(t.name, shape, elt)
        for u in self.updates:
            shape, elt = meta_shape(u)
            self.vals[u] = self.f.arg(u.name, shape, elt)

    def _needed(self, node):
        if not hasattr(self, "_live"):
            self._live = self.jg.ancestors(
                [n for n in self.jg.fwd_outputs if n not in self.updates] + self.jg.grads)
        return node in self._live and node not in self.updates

    def _emit(self, node):
        # The one fallback line names the node, its op and what it holds.
        try:
            self._emit_op(node)
        except Exception as e:   # a dtype without a type, a missing shape, ...
            if node.name in str(e):
                raise
            raise Unsupported("%s (%s): %s" % (node.name, node.target, e)) from e

    def node_time(self, node, out_specs):
        """Under Inductor a kernel's FLOPs or the bytes it moves, whichever
        costs more (cost.roofline): a pointwise kernel's FLOPs are a tenth
        or less of its time, and a plan priced by them recomputes memory-bound
        kernels as if free (Llama at torch.compile's peak: eight recomputed
        1 MiB kernels of 0.004 % predicted cost measured 1 to 2 % of the
        step).  With ATen kernels their FLOPs, as the importer prices them."""
        flops = costmod.flops(node, out_specs)
        return costmod.roofline(flops, _moved_bytes([node], out_specs)) if self.in_place \
            else flops

    def _emit_group(self, root):
        """A fusion group as one remat.op named after its root: what its
        nodes read from outside it, the root's results; its cost the
        kernel's, its nodes' summed FLOPs or the bytes it moves."""
        nodes = self.members[root] + [root]
        ins, flops = [], 0.0
        for n in nodes:
            ins += [v for v in tensor_inputs(self, n) if v not in ins]
            specs = [s for s in result_specs(n)[0] if s is not None]
            flops += costmod.flops(n, specs)
        root_specs = specs   # the loop's last node is the root: what the kernel stores
        time = costmod.roofline(flops, _moved_bytes(nodes, root_specs))
        out = opaque_like(self, root, str(root.target), ins, time=time)
        self._mark_in_place(nodes, root, ins)
        return out

    def _mark_in_place(self, nodes, root, ins):
        """Under Inductor, a pointwise kernel's op (a single node or a group
        whose root is pointwise) overwrites the first input it reads as one
        buffer of its result's (not a view, not an argument): Inductor
        writes the result there when the kernel is its last reader
        (`inplace_buffers`), and the plan counts the two once then.  A
        forward value the backward reads is such an input too: saved, it
        is a donated buffer of Inductor's backward graph, written over
        alike (Llama's loss gradient over its 33.6 MB logits)."""
        if not self.in_place or not fusion.generated_pointwise(root) \
                or not self.f.lines[-1].endswith('loc("%s")' % root.name):
            return
        for n in nodes:
            for a in n.all_input_nodes:
                v = self.vals.get(a)
                if (a.op == "call_function" and a not in self.root_of and v in ins
                        and str(a.target) not in fusion.FOLDED and _same_buffer(a, root)):
                    self.f.lines[-1] = re.sub(r"(#remat\.cost<[^>]*>)",
                                              r"\1, overwrites = %d" % ins.index(v),
                                              self.f.lines[-1], count=1)
                    return

    def _emit_op(self, node):
        if node in self.root_of:    # fused into its root's op: no value of its own
            self.vals[node] = None
            return
        if node in self.members:
            self.vals[node] = self._emit_group(node)
            return
        # A copy allocates in PyTorch (the importer's executable mode binds
        # it to its input); random ops are never recomputed.
        random = is_random(node)
        if random or str(node.target) in COPIES:
            self.vals[node] = opaque_like(self, node, str(node.target),
                                          tensor_inputs(self, node), random=random)
            return
        super()._emit(node)
        self._mark_in_place([node], node, tensor_inputs(self, node))
        ws = self.measured.get(node)
        if ws is None:
            ws = workspace(node)
        if ws and self.f.lines and self.f.lines[-1].endswith('loc("%s")' % node.name):
            self.f.lines[-1] = re.sub(r"(#remat\.cost<[^>]*)>", r"\1, workspace = %d>" % ws,
                                      self.f.lines[-1], count=1)

    def _results(self):
        outs = []
        for n in self.jg.fwd_outputs:
            if n in self.updates:
                continue
            v = self.get(n) if n is not None else None
            if isinstance(v, V):
                outs.append(v)
            elif n is not None:
                raise Unsupported("forward output %s is not a tensor" % n)
        distinct = list(dict.fromkeys(outs, None))
        loss = opaque(self, LOSS_LOC, LOSS_LOC, distinct, [([], "f32")], time=0.0)[0]
        self.f.results.append((loss, "remat.loss"))
        for v in outs:
            self.f.results.append((v, None))
        for g in self.jg.grads:
            if g is not None:
                self.f.results.append((self.get(g), None))


_COST_TIME = re.compile(r"(#remat\.cost<time = )([^,>]+)")
_OP_LOC = re.compile(r'loc\("([^"]+)"\)\s*$')


def _measured_costs(lines, times):
    """Each op's `time` in the lines replaced by its node's measured
    microseconds (split over a node's ops by their estimates), the ops of
    nodes without a time converted at the graph's median measured rate
    (op_times.py).  Returns how many nodes were measured and estimated."""
    est = {}    # node -> its ops' estimated time, summed
    where = []  # (line index, node, estimate)
    for i, line in enumerate(lines):
        t, loc = _COST_TIME.search(line), _OP_LOC.search(line)
        if t and loc:
            node = loc.group(1).split(".", 1)[0]
            where.append((i, node, float(t.group(2))))
            est[node] = est.get(node, 0.0) + float(t.group(2))
    rates = [times[n] / est[n] for n in est if times.get(n) is not None and est[n] > 0]
    rate = statistics.median(rates) if rates else 1.0
    for i, node, e in where:
        m = times.get(node)
        us = e * rate if m is None else (m * e / est[node] if est[node] > 0 else m)
        lines[i] = _COST_TIME.sub(lambda g: g.group(1) + "%.6e" % us, lines[i], count=1)
    measured = sum(1 for n in est if times.get(n) is not None)
    return measured, len(est) - measured


def _group_times(times, members):
    """Each group's measured time: its nodes' summed, None unless all
    were measured."""
    out = dict(times)
    for root, ms in members.items():
        parts = [times.get(n) for n in ms + [root]]
        out[root] = None if None in parts else sum(parts)
    return out


def emit_joint(jg, measure=lambda node: True, times=False, fused=False, groups=None):
    """The MLIR text of the joint graph and the FX node names that have an
    op of their own (the others alias a node that has one).  measure: which
    ops' workspace is measured on their kernel (workspace.py); the others',
    and all with None, by the rules.  times: each op's cost its kernel's
    measured time (op_times.py), else its FLOP estimate; a dict
    {node name: microseconds} (Inductor's kernels: kernel_times.py)
    overrides those measured times; fused: what a
    pointwise op adds to its reader's kernel (Inductor); groups: fused
    member -> root (fusion.py), each group one op; the third result says
    what was measured."""
    # AOTAutograd calls the partitioner under its fake mode; the graph's
    # constants (get_attr, transformers' `torch.tensor(0.)`) are real tensors
    # the emitter reads.
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    with unset_fake_temporarily():
        em = JointEmitter(jg, groups, in_place=fused)
        if measure:
            em.measured = measure_all([n for n in jg.gm.graph.nodes if measure(n)])
        em.run()
        costs = {"costs": "flops"}
        if times:
            node_times, seconds, late = measure_times(list(jg.gm.graph.nodes), fused)
            known = times if isinstance(times, dict) else {}
            node_times.update({n: known[n.name] for n in jg.gm.graph.nodes if n.name in known})
            node_times = _group_times(node_times, em.members)
            measured, estimated = _measured_costs(
                em.f.lines, {n.name: t for n, t in node_times.items()})
            costs = {"costs": "kernels" if known else "measured", "measured_ops": measured,
                     "estimated_ops": estimated, "cost_seconds": seconds,
                     "over_time_limit": late}
    named = {loc.split(".", 1)[0] for loc in em.f.locs}
    return em.f.text(["the joint graph of a torch.compile graph (remat_torch)"]), named, costs
