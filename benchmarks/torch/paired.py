# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A few configurations of one model timed against each other in one
process, alternated step by step: what peers.py's 3 steps cannot tell
apart (ratios within a few per cent).

    python benchmarks/torch/paired.py llama none,block,remat:111316664,remat:100% \\
        [--compiler eager|inductor] [--steps 9] [--quick] [--channels-last]

Configurations: `none` (eager PyTorch), `block` (checkpoint per block, as
peers.py runs it), `seq:K` (checkpoint_sequential at K segments, on the
models peers.py runs it on), `compile` (torch.compile with AOTAutograd's
own partitioner and the compiler given, as peers.py's `compile`) and
`remat:BUDGET`, remat's backend with the compiler given: BUDGET as
peers.py's tables give it, a measured peak in bytes without the graph's
arguments (the parameters, buffers and batch are added, as peers.py does),
or a percentage, or min.  One thread; each configuration runs once to
compile and warm up, then `--steps` rounds of one step each; prints each
configuration's median of CPU time, its steps, and its median over the
first configuration's.  `--profile K` then runs K more rounds under
PyTorch's profiler (Inductor's C++ kernels recording their calls) and
prints where each configuration's step goes: each ATen op, Inductor's
generated kernels together, the rest.
"""

import argparse
import collections
import functools
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from torch.utils import checkpoint  # noqa: E402

import models  # noqa: E402
from peers import Blocks, compiled_backend  # noqa: E402


def _budget(text, args_bytes):
    if text == "min" or text.endswith("%"):
        return text
    return "%dB" % (int(text) + args_bytes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", choices=sorted(models.MODELS))
    ap.add_argument("configs", help="comma-separated: none, block, seq:K, compile, remat:BUDGET")
    ap.add_argument("--compiler", choices=["eager", "inductor"], default="eager",
                    help="compile's and remat's compiler (default eager: ATen kernels)")
    ap.add_argument("--steps", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="peers.py's tiny models")
    ap.add_argument("--channels-last", action="store_true",
                    help="an image model and its batch in channels-last memory format")
    ap.add_argument("--profile", type=int, default=0, metavar="K",
                    help="K profiled rounds after the timed ones: each step's time by kernel")
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    import remat_torch
    if a.profile:
        # Each generated C++ kernel's call is an event (set before compiling).
        from torch._inductor import config as inductor_config
        inductor_config.cpp.enable_kernel_profile = True

    m = models.MODELS[a.model](a.quick)
    m.model.train()
    if a.channels_last and not m.to_channels_last():
        ap.error("--channels-last: %s is not an image model" % a.model)
    blocks = Blocks(m.blocks)
    args_bytes = sum(t.numel() * t.element_size()
                     for t in [*m.model.parameters(), *m.model.buffers(), m.batch])
    runs = {}
    for c in a.configs.split(","):
        if c in ("none", "block"):
            runs[c] = (m.model, "ckpt" if c == "block" else None)
        elif c.startswith("seq:") and c[len("seq:"):].isdigit():
            if m.sequential is None:
                ap.error("%s: %s has no sequential form" % (c, a.model))
            runs[c] = (functools.partial(checkpoint.checkpoint_sequential, m.sequential,
                                         int(c[len("seq:"):]), use_reentrant=False), None)
        elif c == "compile":
            runs[c] = (torch.compile(m.model, backend=compiled_backend(a.compiler)), None)
        elif c.startswith("remat:"):
            backend = remat_torch.backend(_budget(c[len("remat:"):], args_bytes), a.compiler)
            runs[c] = (torch.compile(m.model, backend=backend), None)
        else:
            ap.error("unknown configuration %r" % c)

    def step(name):
        fn, mode = runs[name]
        blocks.mode = mode
        for p in m.model.parameters():
            p.grad = None
        t = time.process_time()
        m.loss(fn).backward()
        return time.process_time() - t

    for name in runs:
        step(name)
    times = {name: [] for name in runs}
    for _ in range(a.steps):
        for name in runs:
            times[name].append(step(name))
    first = statistics.median(times[next(iter(runs))])
    for name, ts in times.items():
        med = statistics.median(ts)
        print("%-24s %8.1f ms  %.3f  [%s]" % (name, 1e3 * med, med / first,
                                              " ".join("%.0f" % (1e3 * t) for t in ts)))
    if a.profile:
        print_profile(runs, step, a.profile)


def _kind(key):
    """An event's group: an ATen op by name, Inductor's generated kernels
    (graph_<id>_cpp_fused_...) together, None for the rest."""
    if key.startswith("aten::"):
        return key
    if key.startswith("graph_") and "_cpp_" in key:
        return "generated kernels"
    return None


def print_profile(runs, step, rounds):
    """Each configuration's median self time per group over `rounds`
    profiled steps, alternated as the timed ones (profiled steps run
    slower: the groups' shares, not their sum, compare with the timing)."""
    from torch.profiler import ProfilerActivity, profile
    groups = {name: collections.defaultdict(lambda: [0.0] * rounds) for name in runs}
    for r in range(rounds):
        for name in runs:
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                step(name)
            for e in prof.key_averages():
                groups[name][_kind(e.key) or "other"][r] += e.self_cpu_time_total / 1e3
    for name, g in groups.items():
        total = statistics.median([sum(v[r] for v in g.values()) for r in range(rounds)])
        print("%s: %.1f ms profiled" % (name, total))
        for kind, ts in sorted(g.items(), key=lambda kv: -statistics.median(kv[1]))[:8]:
            print("  %-24s %8.1f ms  [%s]" % (kind, statistics.median(ts),
                                               " ".join("%.1f" % t for t in ts)))


if __name__ == "__main__":
    main()
