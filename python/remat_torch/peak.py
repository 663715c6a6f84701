# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The measured peak tensor memory of one step, independent of any planner.

    from remat_torch.peak import measure
    loss, peak = measure(step, model, x)            # the CPU
    loss, peak = measure(step, model, x, device="cuda")

`peak` is the most bytes the step had allocated and not yet freed at any
moment, above what was live when it started: parameters, inputs and
anything else created before the call are the baseline and not counted;
what the step returns (its loss, the gradients it leaves in `.grad`) is
counted while it is live during the step.  Set gradients to None before
the call to count them.

How it counts:
- CUDA: `torch.cuda.max_memory_allocated` after `reset_peak_memory_stats`,
  minus `memory_allocated` at the start (the caching allocator's tensor
  bytes, rounded to its 512-byte blocks; its cached, unused memory is not
  counted).
- CPU: PyTorch's CPU allocator reports every allocation and free to the
  profiler when it records memory (`profile_memory=True`): eager ATen ops,
  autograd, and the buffers Inductor's generated code allocates
  (`empty_strided_cpu`) alike.  The events are replayed in time order to a
  running total of the bytes allocated during the step and still live; the
  peak is its maximum.  Exact requested sizes, no rounding.  Not counted:
  scratch memory that libraries keep outside tensors (oneDNN, OpenMP
  threads) and frees of memory allocated before the step (so the CPU count
  never drops below the baseline, where CUDA's would).

The profiler slows the step down: time steps in runs without it.
"""

import contextlib
import os
import warnings

import torch

__all__ = ["measure", "peak_bytes"]


def measure(fn, *args, device="cpu", on_events=None, **kwargs):
    """Run fn(*args, **kwargs) once; return (its result, peak bytes).
    on_events: on the CPU, called with the step's profiler event tree."""
    kind = torch.device(device).type
    if kind == "cuda":
        return _measure_cuda(fn, args, kwargs)
    if kind == "cpu":
        return _measure_cpu(fn, args, kwargs, on_events)
    raise ValueError(f"peak: device must be cpu or cuda, not {device!r}")


def peak_bytes(fn, *args, device="cpu", **kwargs):
    """The peak bytes of fn(*args, **kwargs) (see measure)."""
    return measure(fn, *args, device=device, **kwargs)[1]


def _measure_cuda(fn, args, kwargs):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    result = fn(*args, **kwargs)
    torch.cuda.synchronize()
    return result, torch.cuda.max_memory_allocated() - base


@contextlib.contextmanager
def cpu_memory_profile():
    """The profiler, recording CPU allocations, without its noise: its
    library looks for GPUs when it starts and, on a machine without one,
    logs an error line, and PyTorch warns on each profile; remat measures
    on the CPU, those lines are not the user's.  KINETO_LOG_LEVEL is read
    once, when the library starts: a level the user set stays theirs."""
    from torch.profiler import ProfilerActivity, profile

    os.environ.setdefault("KINETO_LOG_LEVEL", "5")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            yield prof


def _measure_cpu(fn, args, kwargs, on_events=None):
    with cpu_memory_profile() as prof:
        result = fn(*args, **kwargs)
    tree = prof.profiler.kineto_results.experimental_event_tree()
    if on_events is not None:
        on_events(tree)
    return result, replay_peak(tree)


def _allocations(events):
    """CPU allocation events (time, ptr, bytes; frees negative), pre-order."""
    for e in events:
        if e.tag.name == "Allocation":
            f = e.extra_fields
            if f.device.type == "cpu":
                yield e.start_time_ns, f.ptr, f.alloc_size
        yield from _allocations(e.children)


def replay_peak(tree):
    """Max of the running total of bytes allocated in `tree` (profiler
    events) and live; frees of memory allocated before it are not counted."""
    live = {}  # ptr -> bytes allocated in the window
    total = peak = 0
    # A stable sort: events of one clock tick stay in recording order.
    for _, ptr, size in sorted(_allocations(tree), key=lambda a: a[0]):
        if size > 0:
            live[ptr] = size
            total += size
            peak = max(peak, total)
        else:
            # A free of memory allocated before the window is not ours.
            total -= live.pop(ptr, 0)
    return peak


def graph_step_peak(compiled, example_inputs, on_events=None):
    """The peak bytes of one training step of a compiled graph on its
    example inputs (a torch.compile backend's, on their device): the
    forward, then the backward from a gradient of ones for every output
    that requires one.  Counted above the inputs, as `measure` counts.
    Nothing of the caller's changes: the parameters (leaves that require a
    gradient) are read as they are and their `.grad` put back; every other
    tensor (inputs, buffers the step updates in place) is copied; the
    random number generators are left as they were.  (peak, bytes of the
    inputs: the graph's arguments, each rounded up to 64 bytes as remat
    counts them).  on_events: as measure's."""
    def own(x):
        if not isinstance(x, torch.Tensor) or (x.is_leaf and x.requires_grad):
            return x
        return x.detach().clone()
    copies = [own(x) for x in example_inputs]
    tensors = [x for x in copies if isinstance(x, torch.Tensor)]
    params = [x for x in tensors if x.is_leaf and x.requires_grad]
    grads = [p.grad for p in params]
    device = tensors[0].device.type if tensors else "cpu"
    args = sum(-(-x.numel() * x.element_size() // 64) * 64 for x in tensors)

    def step():
        outs = compiled(*copies)
        outs = [o for o in (outs if isinstance(outs, (list, tuple)) else [outs])
                if isinstance(o, torch.Tensor) and o.requires_grad]
        if outs:
            torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])

    cpu_rng = torch.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state() if device == "cuda" else None
    for p in params:
        p.grad = None
    try:
        with torch.enable_grad():
            return measure(step, device=device, on_events=on_events)[1], args
    finally:
        for p, g in zip(params, grads):
            p.grad = g
        torch.set_rng_state(cpu_rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state(cuda_rng)
