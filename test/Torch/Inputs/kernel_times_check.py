# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kernel_times: Inductor's kernels timed in a step, as remat's costs.

    kernel_times_check.py split   # the arithmetic, on made-up events
    kernel_times_check.py model   # a model through the backend

split: each kernel's time goes in equal shares to the nodes it computes
that cost the plan something, the k-th event of a deduplicated kernel to
its k-th call site, events taken in time order whatever the tree's order,
each node the least of its shares.

model: residual Linear / tanh-GELU / Linear blocks through
remat_torch.backend(costs="measured") with Inductor on the CPU: the graph
is planned on its kernels' times (the log says costs "kernels"), every
timed node is a node of the joint graph and the GELU's tanh of each block
is timed, each fusion group's op in the MLIR remat-opt planned costs the
sum of its nodes' times (kernel times over the ATen times op_times
measures), and the step keeps eager PyTorch's gradients within the
budget.
"""

import re
import sys

import torch
import torch.nn.functional as F

import remat_torch
from remat_torch import kernel_times
from remat_torch.peak import peak_bytes


class Event:
    def __init__(self, name, start, ns, children=()):
        self.name, self.start_time_ns, self.duration_time_ns = name, start, ns
        self.children = list(children)


def split():
    kernel_times._RECORDED.clear()
    kernel_times._RECORDED.update({
        "graph_1_cpp_fused_a_0": [["x", "y"], ["x2", "y2"]],   # two call sites
        "graph_2_cpp_fused_b_1": [["v", "x", "z"]],            # v: a view
    })
    # The tree lists the second call site first: time order decides.
    tree = [Event("CompiledFunction", 0, 100, [
        Event("graph_1_cpp_fused_a_0", 20, 6000),
        Event("aten::mm", 15, 1000),
        Event("graph_1_cpp_fused_a_0", 10, 4000)]),
        Event("graph_2_cpp_fused_b_1", 30, 3000)]
    events = kernel_times.kernel_events(tree)
    print("events:", [(name, ns) for _, name, ns in events])
    got = kernel_times.node_times(events, {"x", "y", "x2", "y2", "z"})
    # x: 4 us over (x, y) = 2.0 and 3 us over (x, z) = 1.5: the least.
    want = {"x": 1.5, "y": 2.0, "x2": 3.0, "y2": 3.0, "z": 1.5}
    for n in sorted(set(got) | set(want)):
        print("%s: %s us (want %s)" % (n, got.get(n), want.get(n)))


class Blocks(torch.nn.Module):
    def __init__(self, width=64, depth=3):
        super().__init__()
        self.up = torch.nn.ModuleList(torch.nn.Linear(width, 4 * width) for _ in range(depth))
        self.down = torch.nn.ModuleList(torch.nn.Linear(4 * width, width) for _ in range(depth))

    def forward(self, x):
        for up, down in zip(self.up, self.down):
            x = x + down(F.gelu(up(x), approximate="tanh"))
        return x.square().mean()


_COST = re.compile(r'#remat\.cost<time = ([^,>]+).*loc\("([^".]+)[^"]*"\)\s*$')


def model():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    m, x = Blocks(), torch.randn(256, 64)
    m(x).backward()
    ref = [p.grad.clone() for p in m.parameters()]
    m.zero_grad(set_to_none=True)
    log = []
    c = torch.compile(m, backend=remat_torch.backend("85%", log=log, costs="measured"))
    c(x).backward()
    m.zero_grad(set_to_none=True)
    peak = peak_bytes(lambda: c(x).backward())
    got = [p.grad for p in m.parameters()]
    e = [e for e in log if "fallback" not in e]
    if len(log) != 1 or len(e) != 1:
        print("FELL BACK or not one graph:", log)
        return
    e = e[0]
    print("costs:", e["costs"])
    times, jg = e["kernel_times"] or {}, e["joint_graph"]
    names = {n.name: n for n in jg.gm.graph.nodes}
    print("timed nodes outside the joint graph:", sorted(set(times) - set(names)))
    tanhs = [n for n in names if str(names[n].target) == "aten.tanh.default"]
    print("tanh nodes timed: %d of %d" % (sum(1 for n in tanhs if times.get(n, 0) > 0),
                                          len(tanhs)))
    # Each group's op costs its nodes' times, summed: kernel times where
    # the step ran them, ATen's (op_times) otherwise.
    costs = {}
    for line in e["mlir"].splitlines():
        m_ = _COST.search(line)
        if m_:
            costs[m_.group(2)] = costs.get(m_.group(2), 0.0) + float(m_.group(1))
    members = {}
    for member, roots in e["groups"].items():
        for r in roots:
            members.setdefault(r.name, []).append(member.name)
    checked = wrong = 0
    for root, ms in members.items():
        parts = [times.get(n) for n in ms + [root]]
        if root not in costs or None in parts:
            continue
        checked += 1
        want = sum(parts)
        if abs(costs[root] - want) > 1e-5 * want:
            wrong += 1
            print("group %s: costs %.6e us, its nodes' kernel times %.6e" % (root, costs[root], want))
    print("groups costed from kernel times: %s, %d differ" % ("some" if checked else "none", wrong))
    scale = max(r.abs().max().item() for r in ref)
    diff = max((g - r).abs().max().item() for g, r in zip(got, ref)) / scale
    args = sum(t.numel() * t.element_size() for t in list(m.parameters()) + [x])
    print("gradients %s; measured %s the budget" % (
        "match" if diff <= 1e-4 else "DIFFER (%.1e)" % diff,
        "within" if peak + args <= e["target"] else "OVER"))


if __name__ == "__main__":
    {"split": split, "model": model}[sys.argv[1]]()
