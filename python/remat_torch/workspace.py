# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The temporaries each op's kernel allocates, measured on its own shapes.

A kernel may allocate more than its results while it runs: a convolution's
im2col columns or oneDNN's reordered copies (up to 25 times the output
gradient for a strided patch embedding's backward on the CPU), a
`nll_loss_backward`'s zeroed buffer, copies of non-contiguous inputs.  No
rule per op covers every kernel path, so each distinct op of the joint
graph (target, shapes, strides, dtypes, other arguments) runs once before
planning, on zero-filled tensors of its inputs' shapes and strides, and its
workspace is the most bytes it held at once above what its results need:

    workspace = peak bytes allocated while the op ran - bytes of its results

counted the way `remat_torch.peak` counts a step (the profiler's memory
events on the CPU, the caching allocator's peak on CUDA).  An op that
cannot run on zeros, or any op while a profiler is already recording, has
no measurement (None): the emitter then uses its rule per op.  Views and
aliases allocate nothing and are not run.
"""

import operator

import torch
from torch.fx.node import map_aggregate

from remat_import_torch.graph import ALIASES, VIEWS

from .peak import replay_peak

_CACHE = {}   # signature -> bytes or None, across graphs of one process


# Below one 64-byte buffer, what an op allocates besides its results is the
# 0-d tensor PyTorch wraps a Python number in (`mean`, `div`, `mul` by a
# scalar: 12 bytes on one CPU, none seen on another), not a kernel's
# temporary: counted, it only changed which of the plans that meet the same
# budget is chosen, from one machine to the next.
MIN_WORKSPACE = 64


def _workspace(extra):
    return extra if extra >= MIN_WORKSPACE else 0


def _val(n):
    return n.meta.get("val") if hasattr(n, "meta") else n


def _zeros(v):
    t = torch.empty_strided(tuple(v.shape), tuple(v.stride()), dtype=v.dtype, device=v.device)
    return t.zero_()


def _real(a):
    """A node's value as a zero-filled tensor (or the python value it is)."""
    if not hasattr(a, "op"):
        return a
    v = _val(a)
    if isinstance(v, torch.Tensor):
        return _zeros(v)
    if isinstance(v, (int, float, bool)):
        return v
    raise ValueError("no value for %s" % a)


def _sig(x):
    v = _val(x) if hasattr(x, "op") else x
    if isinstance(v, torch.Tensor):
        return ("T", tuple(v.shape), tuple(v.stride()), str(v.dtype), str(v.device))
    if isinstance(v, (list, tuple)):
        return tuple(_sig(y) for y in v)
    return repr(v)


def signature(node):
    return (str(node.target), _sig(list(node.args)), _sig(sorted(node.kwargs.items())))


def _result_bytes(node):
    vals = _val(node)
    vals = vals if isinstance(vals, (list, tuple)) else [vals]
    return sum(v.numel() * v.element_size() for v in vals if isinstance(v, torch.Tensor))


def _device(nodes):
    for n in nodes:
        v = _val(n)
        if isinstance(v, torch.Tensor):
            return v.device
    return torch.device("cpu")


def runs_a_kernel(n):
    return n.op == "call_function" and n.target is not operator.getitem \
        and str(n.target) not in VIEWS | ALIASES

def measure_all(nodes):
    """{node: workspace bytes or None} for the call_function nodes in
    `nodes` that run a kernel; ops measured before are not run again."""
    nodes = [n for n in nodes if runs_a_kernel(n)]
    todo = {}
    for n in nodes:
        key = signature(n)
        if key not in _CACHE:
            todo.setdefault(key, n)
    if todo:
        dev = _device(todo.values())
        peaks = _run_cuda(todo) if dev.type == "cuda" else _run_cpu(todo)
        for key, n in todo.items():
            p = peaks.get(key)
            _CACHE[key] = _workspace(p - _result_bytes(n)) if p is not None else None
    return {n: _CACHE[signature(n)] for n in nodes}


def _call(n):
    args = map_aggregate(n.args, _real)
    kwargs = map_aggregate(n.kwargs, _real)
    return args, kwargs


def _run_cpu(todo):
    """Each op once under the profiler, inside a marker of its own; its
    peak is the running total of the allocations made inside the marker."""
    from torch.profiler import record_function

    from .peak import cpu_memory_profile

    keys = list(todo)
    keep, failed = [], set()
    try:
        with cpu_memory_profile() as prof:
            for i, key in enumerate(keys):
                n = todo[key]
                try:
                    args, kwargs = _call(n)
                except Exception:
                    continue
                with record_function("remat_ws/%d" % i):
                    try:
                        keep.append(n.target(*args, **kwargs))
                    except Exception:
                        failed.add(i)
                keep.clear()   # the results, after the marker closed
        tree = prof.profiler.kineto_results.experimental_event_tree()
    except RuntimeError:   # a profiler already running (a measured step)
        return {}
    peaks = {}

    def visit(events):
        for e in events:
            if e.name.startswith("remat_ws/") and int(e.name.split("/")[1]) not in failed:
                peaks[keys[int(e.name.split("/")[1])]] = replay_peak(e.children)
            else:
                visit(e.children)
    visit(tree)
    return peaks


def _run_cuda(todo):
    peaks = {}
    for key, n in todo.items():
        try:
            args, kwargs = _call(n)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            out = n.target(*args, **kwargs)
            torch.cuda.synchronize()
            peaks[key] = torch.cuda.max_memory_allocated() - base
            del out
        except Exception:
            continue
    return peaks
