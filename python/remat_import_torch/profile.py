# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""--profile: measured CPU time of every node, as a cost table.

Runs the joint graph on real tensors (the model's own initial weights,
random inputs) node by node and times each ATen call: the median of
`repeats` runs after one warm-up.  Views that the importer materializes
(transposes, expands) are timed as the copy they become (`.contiguous()`).

The table is keyed by the NameLoc names of the emitted ops (what
`--remat-cost-table` looks up): an ATen node that became several ops
(a convolution's padding and the convolution itself; the batch-norm
statistics and the normalization) has its time split over them in
proportion to their analytic work, so the per-node total is the measured
time.  Format (lib/Analysis/CostTable.cpp):
  {"units": {"time": "us"}, "ops": {"convolution": {"time": 812.5}, ...}}
"""

import statistics
import time

import torch
import torch.fx

from .graph import ALIASES, VIEWS

COPY_VIEWS = {"aten.t.default", "aten.transpose.int", "aten.permute.default",
              "aten.expand.default"}


class _Timer(torch.fx.Interpreter):
    def __init__(self, gm, repeats):
        super().__init__(gm)
        self.repeats = repeats
        self.times = {}

    def run_node(self, n):
        if n.op != "call_function":
            return super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        name = str(n.target)
        out = n.target(*args, **kwargs)
        if getattr(n.target, "__name__", "") == "getitem" or name in ALIASES:
            return out
        if name in VIEWS and name not in COPY_VIEWS:
            self.times[n.name] = 0.0
            return out
        copy = name in COPY_VIEWS

        def once():
            r = n.target(*args, **kwargs)
            if copy:
                r.contiguous()
        samples = []
        for _ in range(self.repeats):
            t0 = time.perf_counter()
            once()
            samples.append(time.perf_counter() - t0)
        self.times[n.name] = statistics.median(samples) * 1e6
        return out


def real_inputs(joint):
    """Primals (parameters, buffers, inputs, in the joint graph's order) and
    the tangent as real tensors."""
    wrapper = joint.wrapper
    named = dict(wrapper.named_parameters(remove_duplicate=False))
    named.update(dict(wrapper.named_buffers(remove_duplicate=False)))
    primals = []
    for p in joint.primals:
        if p.kind != "input":
            primals.append(named["model." + p.name].detach())
        elif p.dtype == torch.int64:
            primals.append(torch.arange(p.shape[0], dtype=torch.int64) % 10 if len(p.shape) == 1
                           else joint.example_inputs[0].clone())
        else:
            primals.append(torch.randn(p.shape))
    return primals, [torch.ones([])]


def measure(joint, repeats=5, threads=1):
    """{fx node name: median microseconds}."""
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        primals, tangents = real_inputs(joint)
        if any(p.kind == "input" and p.dtype == torch.int64 for p in joint.primals):
            k = getattr(joint, "num_classes", 10) or 10
            primals = [t if t.dtype != torch.int64 else t % k for t in primals]
        timer = _Timer(joint.graph_module, max(1, repeats))
        with torch.no_grad():
            timer.run(*primals, *tangents)
        return timer.times
    finally:
        torch.set_num_threads(old)


def cost_table(emitter, times):
    """The cost table of the emitted function from node times."""
    by_node = {}
    for loc in emitter.f.locs:
        by_node.setdefault(loc.split(".")[0], []).append(loc)
    ops = {}
    for node, locs in by_node.items():
        t = times.get(node)
        if t is None:
            for loc in locs:
                ops[loc] = {"time": 0.0}
            continue
        work = [emitter.loc_work.get(loc, 0.0) for loc in locs]
        total = sum(work)
        for loc, w in zip(locs, work):
            share = (w / total) if total > 0 else (1.0 if loc == node else 0.0)
            ops[loc] = {"time": round(t * share, 3)}
    return {"units": {"time": "us"}, "ops": ops}
