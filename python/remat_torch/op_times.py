# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Each op's time measured on the device it will run on, as remat's costs.

FLOP counts say a convolution costs what its multiply-adds do and a ReLU
next to nothing; on a GPU the convolution runs on tensor cores and the
ReLU, a batch norm, an add are memory-bound, so what is cheap to
recompute is not what the FLOPs say.  With `costs="measured"` each
distinct op of the joint graph (target, shapes, strides, dtypes, other
arguments: workspace.signature) runs on zero-filled inputs of its shapes
once to warm up and REPEATS times timed, the median counting: CUDA events
around the op on a GPU, the thread's CPU time on the CPU.  Times are kept
across graphs of one process (a cache by signature).

An op that cannot run on zeros, or draws random numbers (running it would
move the caller's generators), has no time: its FLOP estimate (cost.py)
is converted at the graph's own rate, the median of measured time over
estimated FLOPs of the ops measured, so every op of the graph is in one
unit (microseconds).  The ATen kernel is what is timed, also under
Inductor, where a pointwise op fused into its reader costs less: there
the time is an upper bound (docs/torch-compile.md, "Costs").
"""

import statistics
import time

import torch

from .workspace import _call, _device, runs_a_kernel, signature

REPEATS = 3
_CACHE = {}   # signature -> microseconds or None


def _time_cpu(fn):
    fn()
    samples = []
    for _ in range(REPEATS):
        t0 = time.thread_time_ns()
        fn()
        samples.append((time.thread_time_ns() - t0) / 1e3)
    return statistics.median(samples)


def _time_cuda(fn):
    fn()
    samples = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3)
    return statistics.median(samples)


def measure_times(nodes):
    """{node: microseconds or None} for the nodes that run a kernel, and
    the seconds spent measuring the ops not measured before."""
    nodes = [n for n in nodes if runs_a_kernel(n)]
    t0 = time.time()
    # Ops that draw random numbers are not run: the caller's generators
    # must be where they were (their FLOPs stand in for them).
    seeded = {n for n in nodes if torch.Tag.nondeterministic_seeded in getattr(n.target, "tags", ())}
    for n in nodes:
        key = signature(n)
        if key in _CACHE or n in seeded:
            continue
        try:
            args, kwargs = _call(n)
            timer = _time_cuda if _device(n.all_input_nodes).type == "cuda" else _time_cpu
            _CACHE[key] = timer(lambda: n.target(*args, **kwargs))
        except Exception:   # an op that needs real values (indices, a mask's shape)
            _CACHE[key] = None
    return {n: None if n in seeded else _CACHE[signature(n)] for n in nodes}, time.time() - t0
