# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""remat as AOTAutograd's partition function.

Given the joint graph, the plan (planner.py) says where each FX node runs.
The backward phase starts after the loss op (emit.py) or at the plan's
first backward node (one that reads a tangent); a forward node the plan runs there, recomputed or run
for the first time, is computed by the backward graph (`recomputed`).
The saved values are then every other node the backward graph reads: the
cut between the two graphs.  PyTorch's own `_extract_fwd_bwd_modules`
builds both graphs from it, and schedule.py puts the backward's nodes in
the plan's order.  Nodes without an op of their own (views, getitem,
aliases) go wherever the node they alias goes.

A graph remat does not plan (joint.Unplannable: dynamic shapes, an op
or dtype the emitter cannot express, a budget remat-opt refuses, no
remat-opt) goes to PyTorch's partitioner for its compiler, with one line
on stderr saying why.
"""

import re
import sys
import time

import torch
from torch._functorch.compile_utils import raise_getitems
from torch._functorch.partitioners import (_extract_fwd_bwd_modules,
                                           min_cut_rematerialization_partition)

from .batch_norm import read_buffer_copies
from .kernel_times import stamp_sources
from .layout import hint_channels_last
from .emit import LOSS_LOC, emit_joint
from .node_kinds import is_random
from .forward_copies import read_before_recomputed, split_recomputations
from .fusion import expand, fusion_groups, members_by_root
from .joint import Unplannable, read_joint
from .planner import PlanRequested, plan
from .schedule import schedule_graph


# A graph break: the step runs several graphs, and while one runs, the
# others' saved values are live (a model's, during its loss's backward)
# where this graph's budget does not see them.
SECOND_GRAPH = ("remat_torch: a second graph (a graph break or a recompilation): the budget "
                "bounds each graph alone, not what other graphs hold while it runs")


def _asked_bytes(why):
    """The budget in bytes of remat-opt's refusal of one below its smallest
    ('cannot fit @f into N B ...; the smallest budget it can meet is ...')."""
    m = re.search(r"cannot fit @\S+ into (\d+) B.*smallest budget it can meet is \d+ B", why)
    return int(m.group(1)) if m else None


class PlanMismatch(Unplannable):
    """The graphs built do not save what the plan keeps (a bug: the graph
    falls back rather than run another plan than remat's)."""


def backward_start(jg, order):
    """The backward phase starts after the loss op (recomputations the plan
    puts before the first backward op included), or at the first op that
    reads a tangent if that comes first."""
    nodes = jg.nodes()
    bwd = jg.tangent_closure()
    start = next((i for i, name in enumerate(order)
                  if name in nodes and nodes[name] in bwd), len(order))
    if LOSS_LOC in order:
        start = min(start, order.index(LOSS_LOC) + 1)
    return start


def choose(jg, order, named, start):
    """(saved, recomputed, backward start) of a plan's order whose backward
    phase starts at `start`.  A forward value the backward phase reads
    before the plan recomputes it is saved (forward_copies.py)."""
    nodes = jg.nodes()
    bwd = jg.tangent_closure()
    whole = read_before_recomputed(jg, order, start, named)
    late = {nodes[name] for name in order[start:] if name in nodes}
    recomputed = set()
    for n in jg.gm.graph.nodes:   # topological: an alias follows what it aliases
        if n.op != "call_function" or n in bwd:
            continue
        if n.name in named:
            if n in late and n not in whole:
                recomputed.add(n)
        elif n.all_input_nodes and n.all_input_nodes[0] in recomputed:
            recomputed.add(n)
    needed = jg.ancestors(jg.grads)
    computed = (bwd | recomputed) & needed
    saved = [n for n in jg.gm.graph.nodes
             if n.op in ("placeholder", "call_function") and n not in computed
             and n not in jg.tangents and any(u in computed for u in n.users)]
    return saved, recomputed & needed, start


def check_saved(fw, num_fwd_outputs, saved, plan_, named, kept_late=()):
    """The forward returns exactly `saved`, and remat's report keeps every
    saved value that has an op of its own (or keeps it into the backward
    phase before recomputing it: kept_late)."""
    out = next(n for n in fw.graph.nodes if n.op == "output").args[0]
    returned = [n.name for n in out[num_fwd_outputs:]]
    if returned != [n.name for n in saved]:
        raise PlanMismatch("the forward returns %s, the plan saves %s"
                           % (returned, [n.name for n in saved]))
    decisions = plan_.decisions()
    wrong = [n.name for n in saved if n.name in named and n not in kept_late
             and decisions.get(n.name) == "recomputed"]
    if wrong:
        raise PlanMismatch("saved values the report says are recomputed: %s" % wrong)


class RematPartitioner:
    """partition_fn(joint_module, joint_inputs, num_fwd_outputs=..., ...)."""

    def __init__(self, budget, compiler, log=None, verbose=False, workspace="measured",
                 strategy="auto-monotone", warn_graphs=True, costs="auto"):
        self.budget = budget
        self.costs = costs
        self.warn_graphs = warn_graphs   # say so when a second graph comes
        self.strategy = strategy
        self.compiler = compiler
        self.log = log            # a list: one dict per graph planned or not
        self.verbose = verbose
        self.workspace = workspace
        self.graphs = 0           # graphs partitioned so far
        # {joint node name: microseconds} of Inductor's kernels, timed in a
        # step of this graph compiled before (kernel_times.py), or None.
        self.kernel_times = None

    def __call__(self, joint_module, joint_inputs, *, num_fwd_outputs, **kwargs):
        kwargs.pop("compiler", None)    # Inductor names itself
        self.graphs += 1
        if self.graphs == 2 and self.warn_graphs:
            print(SECOND_GRAPH, file=sys.stderr)
        t0 = time.time()
        try:
            fw, bw, info = self.partition(joint_module, num_fwd_outputs)
        except Unplannable as e:
            print("remat_torch: %s; this graph uses PyTorch's partitioner" % e, file=sys.stderr)
            if self.log is not None:
                self.log.append({"fallback": str(e), "requested": isinstance(e, PlanRequested)})
            return min_cut_rematerialization_partition(
                joint_module, joint_inputs, compiler="inductor",
                num_fwd_outputs=num_fwd_outputs, **kwargs)
        info["seconds"] = time.time() - t0
        if self.log is not None:
            self.log.append(info)
        if self.verbose:
            r = info["report"]
            print("remat_torch: %d op runs, budget %s: peak %s -> %s B, %d saved, %d recomputed, "
                  "planned in %.2f s" % (len(info["order"]), self.budget, r.get("peak_before"),
                                         r.get("peak_after"), len(info["saved"]),
                                         len(info["recomputed"]), info["seconds"]),
                  file=sys.stderr)
        return fw, bw

    def _measured(self):
        """Which ops' temporaries are measured: every op with ATen kernels;
        under Inductor those it runs as ATen calls (its convolutions,
        matmuls, fallbacks), its own generated kernels allocating only
        their outputs."""
        if self.workspace != "measured":
            return None
        if self.compiler == "eager":
            return lambda node: True
        from .inductor import runs_aten_kernel
        return runs_aten_kernel

    def _timed(self, jg):
        """Whether each op's cost is its measured time (op_times.py):
        costs="measured", or "auto" on a GPU (on the CPU the FLOP
        estimates are kept: plans then do not change with the machine's
        load, and they already beat checkpointing there)."""
        if self.costs == "auto":
            return any(isinstance(v, torch.Tensor) and v.device.type == "cuda"
                       for v in (n.meta.get("val") for n in jg.gm.graph.nodes))
        return self.costs == "measured"

    def _plan(self, text):
        """remat-opt's plan at the budget, and None; under Inductor, for a
        budget below the model's smallest, the plan at `min` and the budget
        asked in bytes: Inductor fuses what the model counts apart, so that
        plan may measure within the budget (inductor_fit.py measures it,
        keeps it or re-plans it above)."""
        args = ["--remat-strategy=" + self.strategy]
        try:
            return plan(text, self.budget, args), None
        except Unplannable as e:   # refused now, or by the plan cache
            asked = _asked_bytes(str(e))
            if self.compiler != "inductor" or asked is None:
                raise
            return plan(text, "min", args), asked

    def emit_and_plan(self, jg, groups):
        """The joint graph's MLIR (emit_joint's three results) and its plan
        (_plan's two)."""
        try:
            text, named, costs = emit_joint(jg, measure=self._measured(),
                                            times=self.kernel_times or self._timed(jg),
                                            fused=self.compiler == "inductor", groups=groups)
        except Exception as e:  # the emitter's Unsupported, a dtype it has no type for, ...
            raise Unplannable("the importer cannot express this graph: %s" % (
                str(e).splitlines()[0] if str(e) else type(e).__name__))
        return (text, named, costs) + self._plan(text)

    def partition(self, joint_module, num_fwd_outputs):
        joint_module.graph.eliminate_dead_code()
        joint_module.recompile()
        stamp_sources(joint_module.graph)
        # A batch norm the plan recomputes reads its buffers after the
        # forward's copy into them: copies instead (batch_norm.py).
        read_buffer_copies(joint_module)
        jg = read_joint(joint_module, num_fwd_outputs)
        if self.compiler == "inductor":
            hint_channels_last(joint_module.graph)
        # Under Inductor a pointwise chain is one op with the kernel that
        # reads it (fusion.py).  Where every forward value a gradient
        # reads is inlined into it, remat-opt sees no training step: the
        # graph is then planned op by op.
        groups = fusion_groups(jg) if self.compiler == "inductor" else {}
        try:
            text, named, costs, p, asked = self.emit_and_plan(jg, groups)
        except Unplannable as e:
            if not groups or "no training step" not in str(e):
                raise
            groups = {}
            text, named, costs, p, asked = self.emit_and_plan(jg, groups)
        plan_order, named, start = expand(p.order, members_by_root(groups, jg.gm.graph),
                                          named, backward_start(jg, p.order))
        # Values kept into the backward and recomputed later: the saved
        # copy for the readers before, a node of their own after.
        kept_late = read_before_recomputed(jg, plan_order, start, named)
        # A value the plan recomputes in the forward phase only: the
        # backward reads its last copy there, saved.
        names = jg.nodes()
        kept_late |= ({names[x] for x in plan_order[:start] if x in names}
                      - {names[x] for x in plan_order[start:] if x in names})
        order, split_named = split_recomputations(jg, plan_order, start, named)
        saved, recomputed, start = choose(jg, order, split_named, start)
        bad = [n.name for n in recomputed if is_random(n)]
        if bad:
            raise Unplannable("the plan recomputes random ops %s" % bad)
        # PyTorch's helper drops what the backward does not read and may
        # reorder the rest: `saved` is then what the forward returns.
        fw, bw = _extract_fwd_bwd_modules(joint_module, saved, [],
                                          num_fwd_outputs=num_fwd_outputs)
        check_saved(fw, num_fwd_outputs, saved, p, named, kept_late)
        bw = schedule_graph(bw, [x for x in order[start:] if x != LOSS_LOC])
        # The forward keeps PyTorch's order (dropout draws its masks in
        # eager order) unless the plan recomputes there.
        fwd_order = [x for x in plan_order[:start] if x in names]
        if len(set(fwd_order)) < len(fwd_order):
            fw = schedule_graph(fw, fwd_order)
        else:
            # A tuple's getitems right after it, as schedule_graph does: a
            # batch norm's running statistics are read at the forward's end
            # (copy_ into the buffers), which kept its whole tuple alive.
            fw = raise_getitems(fw)
        # order: remat-opt's, as it names the plan (inductor_fit.py);
        # run_order: with the fusion groups' members (backward_start's).
        return fw, bw, {"report": p.report, "order": p.order, "run_order": plan_order,
                        "budget": self.budget,
                        "asked": asked,
                        "saved": [n.name for n in saved],
                        "recomputed": sorted(n.name for n in recomputed),
                        "backward_nodes": [n.name for n in bw.graph.nodes
                                           if n.op == "call_function"],
                        "mlir": text, "joint": joint_module, "joint_graph": jg,
                        "backward_start": start, "named": named, "groups": groups, **costs}
