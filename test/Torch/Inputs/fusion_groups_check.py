# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Inductor's fusions as the plan's ops (remat_torch/fusion.py), checked on
random models and on one written by hand.

    fusion_groups_check.py [--models N] [--seed S]

Each random model is a forward of pointwise ops (unary, binary with a
broadcast operand, with a tensor factory's constant), views (transpose,
reshape, unsqueeze-expand), gathers, reductions over a dimension and
matmuls, every op reading one or two
earlier values chosen at random, so values have one, two or more readers,
through views or not.  Its joint graph is partitioned by remat as under
Inductor (the grouping on) at 100 % and at `min`, and run by the eager
compiler, so that what is checked is the plan and not Inductor:
- no fallback, and the gradients equal eager PyTorch's (the members
  reordered and recomputed with their roots compute the same values);
- every member is a pointwise node that no op of the MLIR is named after,
  each of its readers (through views) is one of its groups' roots or a
  member of a group of them, and each root is a pointwise node or a
  reduction that Inductor generates;
- no member is saved for the backward: a member lives inside its group's
  kernel, so the plan's saved values are roots or stored values;
- no op costs less than storing its result (cost.roofline: a kernel's
  FLOPs or BYTE_FLOPS per byte it moves, whichever is more).
The hand-written models: a chain x*2 -> +1 -> tanh -> sum(dim) -> mm,
one group (mul, add, tanh into the sum) reading x alone, priced by the
bytes it moves (x read, the sum written: 4 x (256 + 32) = 1152, where its
FLOPs are 64 + 64 + 64 + 3 x 64 = 384); a cross-entropy
loss over x @ w, whose log-softmax Inductor computes inside the loss's
gather kernel (never stored) and whose factories (the ignored label's
constant, the labels' iota in the gradient) are constants in their
readers' kernels; mm -> relu -> mm, whose relu writes over the first
product and whose relu gradient over the incoming gradient (each kernel
the last reader of a buffer of its result's shape: emit.py marks the op
`overwrites`); the loss's gradient kernel writes over the logits it
last reads, a saved value (Inductor's backward donates it).  Only
pointwise kernels are marked, in every model.
"""

import argparse
import random
import re
import sys

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._dynamo.backends.debugging import boxed_nop

from remat_torch.fusion import (_FACTORIES, base, _generated, _pointwise, _readers,
                                generated_pointwise)
from remat_import_torch.cost import BYTE_FLOPS
from remat_torch.partition import RematPartitioner

UNARY = [torch.tanh, torch.sigmoid, torch.exp, torch.relu, lambda a: a * 0.5, torch.sin]
BINARY = [torch.add, torch.mul, torch.sub, lambda a, b: torch.where(a > b, a, b)]
N = 8
_COST = re.compile(r"#remat\.cost<time = ([^,>]+), bytes = (\d+)")


class Random(torch.nn.Module):
    """A random DAG of ops over [N, N] values (the recipe: a list of ops)."""

    def __init__(self, rng, ops):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(N, N) / N)
        self.register_buffer("index", torch.randint(0, N, (N, N)))
        self.recipe = []
        for i in range(ops):
            kind = rng.choice(["unary"] * 3 + ["binary"] * 3 + ["view", "reduce", "mm", "factory",
                                                                  "gather"])
            a = rng.randrange(i + 1)
            b = rng.randrange(i + 1)
            self.recipe.append((kind, rng.randrange(6), a, b))

    def forward(self, x):
        vals = [x * self.w]
        for kind, k, a, b in self.recipe:
            va, vb = vals[a], vals[b]
            if kind == "factory":
                v = [va + torch.full((N, N), 2.0), torch.where(va > 0, va, torch.zeros(N, N)),
                     va * torch.arange(N, dtype=va.dtype)][k % 3]
            elif kind == "gather":
                v = va.gather(k % 2, self.index)
            elif kind == "unary":
                v = UNARY[k](va)
            elif kind == "binary":
                v = BINARY[k % len(BINARY)](va, vb if k % 2 else vb[0:1].expand(N, N))
            elif kind == "view":
                v = [va.t(), va.reshape(N * N).reshape(N, N), va[0].unsqueeze(0).expand(N, N)][k % 3]
            elif kind == "reduce":
                v = va.sum(dim=k % 2, keepdim=True).expand(N, N)
            else:
                v = va @ self.w
            vals.append(v)
        return sum(v.sum() for v in vals[-3:])


class Loss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(N, 4 * N))
        self.register_buffer("labels", torch.randint(0, 4 * N, (N,)))

    def forward(self, x):
        return torch.nn.functional.cross_entropy(x @ self.w, self.labels)


class Relu(torch.nn.Module):
    """mm -> relu -> mm: the relu's kernel is the last reader of the first
    product, a buffer of its shape (Inductor writes over it)."""
    def __init__(self):
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(N, N))
        self.w2 = torch.nn.Parameter(torch.randn(N, N))

    def forward(self, x):
        return (torch.relu(x @ self.w1) @ self.w2).sum()


class Chain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(N, N))

    def forward(self, x):
        s = torch.tanh(x * 2 + 1).sum(dim=1, keepdim=True)
        return (s.expand(N, N) @ self.w).sum()


def check(model, x, budget, label, decompose=False):
    """The checks above for one model at one budget (the joint graph after
    Inductor's decompositions if `decompose`); returns the log entry."""
    log = []
    part = RematPartitioner(budget, "inductor", log, workspace="rules")
    extra = {}
    if decompose:
        from torch._inductor.decomposition import select_decomp_table
        extra["decompositions"] = select_decomp_table()
    compiled = torch.compile(model, backend=aot_autograd(
        fw_compiler=boxed_nop, bw_compiler=boxed_nop, partition_fn=part, **extra))
    torch._dynamo.reset()
    model.zero_grad()
    model(x).backward()
    want = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    compiled(x).backward()
    got = [p.grad for p in model.parameters()]
    entry = log[-1] if log else {"fallback": "not planned"}
    if "fallback" in entry:
        sys.exit("%s: fell back: %s" % (label, entry["fallback"]))
    err = max((g - w).abs().max().item() for g, w in zip(got, want))
    if err > 1e-5:
        sys.exit("%s: gradients differ from eager by %g" % (label, err))
    jg, groups = entry["joint_graph"], entry["groups"]
    locs = set(re.findall(r'loc\("([^".]+)', entry["mlir"]))
    for m, roots in groups.items():
        if not _pointwise(m) or m.name in locs:
            sys.exit("%s: member %s is not pointwise or has an op of its own" % (label, m.name))
        for u in _readers(m):
            if u.op == "call_function" and u.name not in locs and u not in groups:
                continue    # a recomputation's copy, made after planning (forward_copies.py)
            if u not in roots and not set(groups.get(u, ())) & set(roots):
                sys.exit("%s: member %s is read by %s outside its groups" % (label, m.name, u.name))
        bad = [r.name for r in roots if not _generated(r) or r.name not in locs]
        if bad:
            sys.exit("%s: roots %s are not generated kernels with an op" % (label, bad))
    by_name = {n.name: n for n in jg.gm.graph.nodes}
    for line in entry["mlir"].splitlines():
        if "overwrites =" in line:
            root = by_name[re.search(r'loc\("([^".]+)', line).group(1)]
            if not generated_pointwise(root):
                sys.exit("%s: %s overwrites an input but is no pointwise kernel" % (label, root.name))
    for line in entry["mlir"].splitlines():
        cost = _COST.search(line)
        if cost and 'loc("forward_outputs")' not in line and \
                float(cost.group(1)) < BYTE_FLOPS * int(cost.group(2)):
            sys.exit("%s: an op costs less than storing its result: %s" % (label, line.strip()))
    saved = set(entry["saved"]) & {m.name for m in groups}
    if saved:
        sys.exit("%s: members saved for the backward: %s" % (label, sorted(saved)))
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    members = recomputed = 0
    for i in range(args.models):
        model = Random(rng, rng.randrange(6, 16))
        x = torch.randn(N, N)
        for budget in ("100%", "min"):
            e = check(model, x, budget, "model %d at %s" % (i, budget))
            members += len(e["groups"])
            recomputed += len(set(e["recomputed"]) & {m.name for m in e["groups"]})
    print("random models: %d checked, %d members, %d members recomputed with their roots"
          % (args.models, members, recomputed))
    e = check(Chain(), torch.randn(N, N), "min", "chain")
    groups = {m.name: [r.name for r in rs] for m, rs in e["groups"].items()}
    op = [l for l in e["mlir"].splitlines() if 'loc("sum' in l]
    print("chain: members %s" % sorted((m, rs[0]) for m, rs in groups.items()))
    print("chain: the sum's op reads %d value(s)" % (op[0].count("%") - 1 if op else -1))
    print("chain: the sum's op costs %g" % float(_COST.search(op[0]).group(1)))
    e = check(Relu(), torch.randn(N, N), "100%", "relu")
    over = sorted(re.search(r'loc\("([^".]+)', l).group(1)
                  for l in e["mlir"].splitlines() if "overwrites =" in l)
    print("relu: in place %s" % over)
    e = check(Loss(), torch.randn(N, N), "min", "loss", decompose=True)
    nodes = list(e["joint_graph"].gm.graph.nodes)
    gathers = [n for n in nodes if str(n.target) == "aten.gather.default"]
    read = [base(g.args[0]) for g in gathers]
    print("loss: %d gather(s), their log-softmax a member: %s" % (
        len(gathers), all(r in e["groups"] for r in read) and bool(read)))
    logits = [n.name for n in nodes if str(n.target) == "aten.mm.default"
              and not any(a.name.startswith("tangents") for a in n.all_input_nodes)][:1]
    over = []
    for l in e["mlir"].splitlines():
        k = re.search(r"overwrites = (\d+)", l)
        if k:
            operands = re.search(r'remat\.op "[^"]+"\(([^)]*)\)', l).group(1).split(", ")
            over.append(operands[int(k.group(1))])
    print("loss: kernels writing over the logits (a saved, donated buffer): %d"
          % sum(o == "%" + logits[0] for o in over))
    factories = [n for n in nodes if str(n.target) in _FACTORIES
                 and all(_generated(u) for u in _readers(n))]
    print("loss: %d factories read by generated kernels alone, stored: %s" % (
        len(factories), sorted(n.name for n in factories if n not in e["groups"])))


if __name__ == "__main__":
    main()
