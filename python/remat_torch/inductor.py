# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat in Inductor's pipeline: its partitioner and its fusion choices.

Inductor takes a custom partitioner as a `CustomPartitionerFn` in its
config (`custom_partitioner_fn`), and its FX-graph and AOTAutograd caches
pickle that config into their keys.  `RematInductorPartitioner` pickles as
its identity alone (`uuid()`: the budget, the planner, remat's Python
sources and the remat-opt it runs), so the caches key remat's graphs by
what decides their plan and reuse them across runs; a change to any of
those is a new key.  The same config tells `_RematFusion` and
`_flushing` which graphs are remat's.
"""

import bisect
import dataclasses
import hashlib
import os
import weakref

from torch._inductor.custom_graph_pass import CustomPartitionerFn

from .kernel_times import record_kernel
from .planner import find_remat_opt

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCES = [os.path.join(_HERE, "..", pkg) for pkg in ("remat_torch", "remat_import_torch")]
_version = None


def remat_version():
    """A hash of remat's Python sources and of the remat-opt it would run
    (path, size and modification time: hashing its bytes would cost more
    than a compile)."""
    global _version
    if _version is None:
        h = hashlib.sha256()
        for root in _SOURCES:
            for d, dirs, files in sorted(os.walk(root)):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(".py"):
                        with open(os.path.join(d, f), "rb") as fh:
                            h.update(f.encode() + b"\0" + fh.read())
        tool = find_remat_opt()
        if tool:
            st = os.stat(tool)
            h.update(("%s:%d:%d" % (os.path.realpath(tool), st.st_size, st.st_mtime_ns)).encode())
        _version = h.hexdigest()[:16]
    return _version


class _Identity:
    """What a pickled RematInductorPartitioner is: its uuid, nothing to call."""

    def __init__(self, uuid):
        self.uuid = uuid


class RematInductorPartitioner(CustomPartitionerFn):
    """A RematPartitioner as Inductor's `custom_partitioner_fn`."""

    def __init__(self, partitioner):
        self.partitioner = partitioner

    def __call__(self, gm, joint_inputs, **kwargs):
        return self.partitioner(gm, joint_inputs, **kwargs)

    def uuid(self):
        p = self.partitioner
        return "remat_torch:%s:%s:%s:%s:%s" % (p.budget, p.strategy, p.workspace, p.costs,
                                               remat_version())

    def __reduce__(self):
        # The partitioner holds the caller's log (graphs, not picklable);
        # the key needs only what decides the plan.
        return (_Identity, (self.uuid(),))


# Lowered by Inductor to a call of the ATen kernel itself (an extern
# kernel), besides the ops it falls back on: their temporaries are the
# ATen kernel's, measured as the eager compiler measures them.
_EXTERN = {"aten.convolution.default", "aten.mm.default", "aten.addmm.default",
           "aten.bmm.default", "aten.baddbmm.default", "aten._int_mm.default"}


def runs_aten_kernel(node):
    """Whether Inductor runs this FX node as the ATen kernel (a fallback or
    an extern kernel) rather than as code it generates, whose buffers are
    its outputs alone."""
    from torch._inductor.lowering import fallbacks
    return node.target in fallbacks or str(node.target) in _EXTERN


# Inductor's config for remat's graphs.  Its layout optimization copies
# every convolution's weight and activations to channels-last inside the
# graph: buffers the plan never sees, kept until their last reader
# (resnet18 at min measured 1.31 times its plan with it, 1.01 without).
# A model that wants channels-last converts itself
# (`model.to(memory_format=torch.channels_last)`): the plan sees those.
# Its buffer reuse gives a later buffer the storage of one freed earlier
# with the same size, and does not free that one in between: held across
# the plan's peak, remat's frees come too late (a ViT at `min`: two
# attention-sized buffers and four activations held through its first
# block's backward, 68.7 MiB measured where the plan's order holds 63.1).
# Without it each buffer is freed at its last reader, as the plan frees
# it; a kernel still writes into an input it is the last reader of
# (`inplace_buffers`).  Its peak-memory reordering
# (`reorder_for_peak_memory`) sorts the kernels again by its own estimate
# of their buffers, which is not remat's plan: it moved a ViT's weight
# gradients to the end of the backward, each block's output gradients
# and normalized activations held until then (benchmarks/torch's ViT at
# `min`: 194.4 MB measured where the plan holds 127.4; without it 127.4).
CONFIG = {"layout_optimization": False, "allow_buffer_reuse": False,
          "reorder_for_peak_memory": False}


def is_remat_graph():
    from torch._inductor import config
    return isinstance(config.custom_partitioner_fn, RematInductorPartitioner)


class _RematFusion:
    """Inductor's fusion choices, but for remat's graphs no horizontal
    fusion: two kernels that read the same buffers and do not depend on
    each other, fused, compute their outputs at once, where remat's order
    computes each right before its readers (a 3-block decoder at `min`
    measured 1.73 times its plan with them, 1.36 without); and no vertical
    fusion across an ATen call of the plan's order
    (_fusion_spans_aten_call).  Every other choice, and every graph not
    partitioned by remat, is Inductor's."""

    def __init__(self, prior):
        self._prior = prior

    def __getattr__(self, name):
        return getattr(self._prior, name)

    def can_fuse_horizontal(self, scheduler, node1, node2, shared_data_score):
        if is_remat_graph():
            return False
        return self._prior.can_fuse_horizontal(scheduler, node1, node2, shared_data_score)

    def can_fuse_vertical(self, scheduler, node1, node2, shared_data_score):
        if is_remat_graph() and _fusion_spans_aten_call(node1, node2):
            return False
        return self._prior.can_fuse_vertical(scheduler, node1, node2, shared_data_score)


# GraphLowering -> (each post-grad FX node's position, the sorted positions
# of the nodes Inductor runs as ATen calls)
_PLAN_ORDER = weakref.WeakKeyDictionary()


def _plan_order():
    from torch._inductor.virtualized import V
    graph = V.graph
    order = _PLAN_ORDER.get(graph)
    if order is None:
        nodes = list(graph.module.graph.nodes)
        position = {n: i for i, n in enumerate(nodes)}
        calls = [i for i, n in enumerate(nodes) if n.op == "call_function" and runs_aten_kernel(n)]
        order = _PLAN_ORDER[graph] = (position, calls)
    return order


def _fx_positions(node, position):
    return [position[o] for s in node.get_nodes() if s.node is not None
            for o in s.node.get_origins() if o in position]


def _fusion_spans_aten_call(node1, node2):
    """Whether an ATen call (a matmul, a fallback) lies, in the plan's order
    (the post-grad FX graph's), between the last op of producer node1 and
    the first of consumer node2.  Fused, node1's ops run in node2's kernel
    and its outputs are allocated there, across that call, with node2's: a
    chain of recomputed values each read by a later matmul becomes one
    kernel that computes them all at once.  Llama's residual stream and
    RMSNorm outputs, recomputed for nine layers by one backward kernel,
    nine 1 MB outputs live together where the plan computes each right
    before its layer (benchmarks/torch's Llama at `min`: 1.099 of its plan
    measured; with such fusions refused, its plan)."""
    position, calls = _plan_order()
    first = _fx_positions(node1, position)
    second = _fx_positions(node2, position)
    if not first or not second:
        return False
    i = bisect.bisect_right(calls, max(first))
    return i < len(calls) and calls[i] < min(second)


_FLUSHING = {}   # Inductor's scheduling class -> its subclass below


def _flushing(cls):
    """Inductor's C++ scheduling, but for remat's graphs one kernel call per
    scheduled node.  It otherwise groups consecutive kernels up to the next
    extern call (a convolution) into one C++ function: every output of the
    group is allocated before the call and every input freed after it, so
    values remat's order computes and frees one after the other are live
    at once (resnet18 at `min` under bf16 autocast: five float32 weight
    gradients and their bfloat16 sources, 1.05 times its plan).  It also
    notes which FX nodes each of remat's kernels computes, to time them
    (kernel_times.record_kernel)."""
    if cls not in _FLUSHING:
        class Flushing(cls):
            def ready_to_flush(self):
                return is_remat_graph() or super().ready_to_flush()

            def define_kernel(self, src_code, nodes, kernel_args=None):
                name = super().define_kernel(src_code, nodes, kernel_args)
                if is_remat_graph():
                    record_kernel(name, nodes)
                return name
        Flushing.__name__ = Flushing.__qualname__ = cls.__name__
        _FLUSHING[cls] = Flushing
    return _FLUSHING[cls]


def _remat_cpu_scheduling(make):
    def make_flushing(scheduler):
        sched = make(scheduler)
        sched.__class__ = _flushing(type(sched))
        return sched
    make_flushing.remat = True
    return make_flushing


def _bytes(node):
    v = node.meta.get("val") if hasattr(node, "meta") else None
    return v.numel() * v.element_size() if hasattr(v, "numel") else 0


def _deferral_holds_more(match):
    """Whether rewriting a matched add(mm(a, b), c) as addmm would move the
    matmul past other kernels (views aside) and hold an input larger than
    its result until the add."""
    from remat_import_torch.graph import ALIASES, VIEWS
    add = match.output_node()
    mm = next((n for n in match.nodes if n is not add and n.op == "call_function"), None)
    if mm is None or max((_bytes(a) for a in mm.all_input_nodes), default=0) <= _bytes(mm):
        return False
    n = mm.next
    while n is not add and n.op != "root":
        if n.op == "call_function" and str(n.target) not in VIEWS | ALIASES:
            return True
        n = n.next
    return False


def _matmuls_in_place():
    """For remat's graphs, Inductor's post-grad rewrite of add(mm(a, b), c)
    into addmm(c, a, b), which computes the matmul where the add runs, is
    declined where that moves the matmul past other kernels and holds an
    input larger than its result until the add (its check asks
    `should_prefer_unfused_addmm`, looked up when it runs).  GPT-2 with a
    tied embedding: the output projection's weight gradient is
    added to the embedding's at the end of the backward, and the 33.5 MB
    logits gradient it reads was held through the whole backward
    (benchmarks/torch's GPT-2 at `min`: 100.5 MB measured against a plan of
    82.4 MB; now 82.4).  Elsewhere the rewrite stands: a residual's
    gradient added to a matmul's, whose inputs are no larger than its
    result, measures its plan with it (GeluStack at `min`; declined, 1.07
    of it), and other graphs keep Inductor's choice."""
    from torch._inductor.fx_passes import post_grad
    prior = getattr(post_grad, "should_prefer_unfused_addmm", None)
    if prior is None or getattr(prior, "remat", False):
        return

    def should_prefer_unfused_addmm(match):
        return (is_remat_graph() and _deferral_holds_more(match)) or prior(match)
    should_prefer_unfused_addmm.remat = True
    post_grad.should_prefer_unfused_addmm = should_prefer_unfused_addmm


def install_fusion_choices():
    """Puts _RematFusion in front of this thread's Inductor choices, makes
    the CPU's scheduling a _flushing one, and keeps remat's matmuls where
    the plan computes them (_matmuls_in_place), once each (kept: the
    backward compiles on its first run, after the backend has returned)."""
    from torch._inductor.codegen import common
    from torch._inductor.virtualized import V
    _matmuls_in_place()
    prior = V.choices
    if not isinstance(prior, _RematFusion):
        V.set_choices_handler(_RematFusion(prior))
    common.init_backend_registration()
    cpu = common.device_codegens.get("cpu")
    if cpu is not None and not getattr(cpu.scheduling, "remat", False):
        common.device_codegens["cpu"] = dataclasses.replace(
            cpu, scheduling=_remat_cpu_scheduling(cpu.scheduling))
