# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Inductor's own C++ kernels timed in a step, as remat's costs.

ATen's time for an op says little of what Inductor's generated code
pays for it: a pointwise chain is one loop, a recomputation fused into
its reader's kernel adds what it computes there, and what that costs
depends on the code (GPT-2's tanh GELU took 3.3 ms a layer in Inductor's
kernel on the CPU, about its 537-MFLOP matmul; the causal softmax with
its mask computed inline, twice a batched matmul).  With
costs="measured" under Inductor on the CPU, remat's graphs compile with
Inductor's kernel profiling on (`cpp.enable_kernel_profile`: each kernel
call records an event named after it), and:

- record_kernel: as Inductor writes each kernel, the FX nodes it
  computes (its IR nodes' origins), named as in the joint graph: a node
  the plan recomputes is a copy, which carries its source's name
  (SOURCE, set by stamp_sources on the joint graph);
- node_times: from the events of one profiled step (the fit's
  measurement, inductor_fit.py), each node's time: its kernel's time
  split evenly over the nodes it computes, the least over the kernels
  that compute it (forward or recomputed).

Ops Inductor runs as ATen calls (matmuls, convolutions, fallbacks) are
not among them: op_times measures those.  Kernels of one source are
deduplicated by Inductor (one name, several call sites: a model's equal
layers); each call site is recorded in code order, and the k-th event of
a name is its k-th call site.
"""

SOURCE = "remat_source"
_RECORDED = {}   # profiler event name -> [[joint node names], ...], one per call site


def stamp_sources(graph):
    """Each node of the joint graph names itself as its copies' source."""
    for n in graph.nodes:
        n.meta.setdefault(SOURCE, n.name)


def _event_name(kernel_name):
    from torch._inductor.virtualized import V
    gid = V.graph.graph_id
    # As the kernel's profiling names it (codegen/cpp.py).
    return ("graph_%d_" % gid if gid is not None else "") + kernel_name


def record_kernel(kernel_name, nodes):
    """Notes a call site of the C++ kernel Inductor has just defined for one
    of remat's graphs (inductor.py's C++ scheduling calls it): the joint
    nodes its IR nodes come from, when the graph compiles with kernel
    profiling on (its events are then timed)."""
    from torch._inductor import config
    if not config.cpp.enable_kernel_profile:
        return
    from torch._inductor.utils import aggregate_origins
    names = sorted({o.meta.get(SOURCE, o.name) for o in aggregate_origins(nodes)
                    if o.op == "call_function"})
    _RECORDED.setdefault(_event_name(kernel_name), []).append(names)


def kernel_events(tree):
    """(start ns, name, duration ns) of the recorded kernels' events in a
    profiler event tree, in time order."""
    out = []

    def walk(events):
        for e in events:
            if e.name in _RECORDED:
                out.append((e.start_time_ns, e.name, e.duration_time_ns))
            walk(e.children)
    walk(tree)
    return sorted(out)


def node_times(events, costed):
    """{joint node name: microseconds} from kernel_events' list, each
    kernel's time split over the nodes it computes that are in `costed`
    (those that cost the plan something: not views)."""
    seen, times = {}, {}
    for _, name, ns in events:
        sites = _RECORDED[name]
        k = seen.get(name, 0)
        seen[name] = k + 1
        nodes = [n for n in sites[k % len(sites)] if n in costed]
        if not nodes:
            continue
        share = ns / 1e3 / len(nodes)
        for n in nodes:
            times[n] = min(times.get(n, share), share)
    return times
