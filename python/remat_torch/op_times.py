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

Measuring is bounded: once a graph has spent TIME_LIMIT_S seconds on
ops not measured before (environment: REMAT_TORCH_MEASURE_SECONDS), the
rest are not run (nor cached: a later graph may measure them), and the
log entry says how many (`over_time_limit`).  Those, and an op that
cannot run on zeros or draws random numbers (running it would move the
caller's generators), have no time: its FLOP estimate (cost.py) is
converted at the graph's own rate, the median of measured time over
estimated FLOPs of the ops measured, so every op of the graph is in one
unit (microseconds).

Under Inductor (`fused=True`) a pointwise op runs inside the kernel of
the op that reads it: it does not write its result to memory nor does
its reader load it back.  What it adds there is its ATen time less that
round trip, measured as a copy of its result (allocate, read, write),
and at least FUSED_FLOOR of its ATen time (it still computes).  Other ops
(convolutions, matmuls, reductions, Inductor's fallbacks) run as their
own kernels: their ATen time.
"""

import os
import statistics
import sys
import time

import torch

from .workspace import _call, _device, runs_a_kernel, signature

REPEATS = 3
FUSED_FLOOR = 0.1
TIME_LIMIT_S = 120.0
_CACHE = {}   # (signature, fused) -> microseconds or None


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


def fuses_into_reader(node):
    return torch.Tag.pointwise in getattr(node.target, "tags", ())


def _time_op(n, fused):
    args, kwargs = _call(n)
    timer = _time_cuda if _device(n.all_input_nodes).type == "cuda" else _time_cpu
    us = timer(lambda: n.target(*args, **kwargs))
    if fused and fuses_into_reader(n):
        out = n.target(*args, **kwargs)
        if isinstance(out, torch.Tensor):
            round_trip = timer(lambda: torch.empty_like(out).copy_(out))
            us = max(us - round_trip, FUSED_FLOOR * us)
    return us


def time_limit():
    """Seconds a graph may spend measuring ops (TIME_LIMIT_S, or the
    environment's REMAT_TORCH_MEASURE_SECONDS)."""
    text = os.environ.get("REMAT_TORCH_MEASURE_SECONDS")
    if text is None:
        return TIME_LIMIT_S
    try:
        limit = float(text)
    except ValueError:
        limit = -1.0
    if not limit >= 0:   # also NaN
        raise ValueError("REMAT_TORCH_MEASURE_SECONDS=%r is not a number of seconds >= 0" % text)
    return limit


def measure_times(nodes, fused=False):
    """{node: microseconds or None} for the nodes that run a kernel, the
    seconds spent measuring the ops not measured before, and how many
    nodes were left unmeasured when that passed time_limit().  fused: the
    graph runs under Inductor (pointwise ops cost what they add to their
    reader's kernel)."""
    nodes = [n for n in nodes if runs_a_kernel(n)]
    keys = {n: (signature(n), fused) for n in nodes}
    limit = time_limit()
    t0 = time.time()
    # Ops that draw random numbers are not run: the caller's generators
    # must be where they were (their FLOPs stand in for them).
    seeded = {n for n in nodes if torch.Tag.nondeterministic_seeded in getattr(n.target, "tags", ())}
    for n in nodes:
        key = keys[n]
        if key in _CACHE or n in seeded or time.time() - t0 >= limit:
            continue
        try:
            _CACHE[key] = _time_op(n, fused)
        except Exception:   # an op that needs real values (indices, a mask's shape)
            _CACHE[key] = None
    # Past the limit: not in the cache (a later graph may measure them).
    late = sum(1 for n in nodes if n not in seeded and keys[n] not in _CACHE)
    if late:
        print("remat_torch: measuring op times reached the graph's limit of %g s "
              "(REMAT_TORCH_MEASURE_SECONDS); %d ops not measured, their FLOP estimates "
              "stand in" % (limit, late), file=sys.stderr)
    times = {n: None if n in seeded else _CACHE.get(keys[n]) for n in nodes}
    return times, time.time() - t0, late
