#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks gen_sharded.py's steps: sharded ranks against the single twin,
the single twin against PyTorch.

Every comparison requires, per tensor, max |got - want| <= rtol * max |want|
(rtol 1e-5 unless --rtol) and a non-zero reference.  Each rank's result k
is compared with the slice of the single twin's result k that the rank
holds (gen_sharded.layout: a gradient has its parameter's layout; rank r
holds block r along the sharded dimension); a replicated result must also
be equal on all ranks.

Commands (sizes as gen_sharded.py: --form --ranks --seq --batch --width
--heads --ffn --layers):

  outputs SINGLE_OUT RANKS_OUT   the MPI check: SINGLE_OUT is what run.sh
        printed for the single twin, RANKS_OUT what `RANKS=N run.sh` printed
        for the sharded form (rank 0's stdout, then rank 1's, ...); both
        parsed from printMemrefF32's text.
  simulate  runs the form's program text on its ranks in numpy (float64,
        collectives simulated: gen_sharded.simulate), and the single twin;
        compares the ranks with the single twin's slices and the single twin
        with PyTorch autograd (float64).  Needs torch.
        --all: every sharded form at 2 and 4 ranks, in one run.
        --print-ranks: print instead the ranks' results as printMemrefF32
        would (rank 0, then rank 1, ...), the input `outputs` expects.
  single [--mlir FILE]  runs the single twin (or FILE, with the generated
        harness) through test/Integration/CPU/run.sh and compares the loss
        and gradients with PyTorch autograd (float64) and with the
        simulation.  Needs torch.
Exit status 0 when everything matches, 1 otherwise.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_sharded as gs  # noqa: E402

NUM = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def parse_memrefs(text):
    """[(shape, array)] of every printMemrefF32 in `text`; the data of each
    runs to its closing bracket, so other text between them is ignored.  A
    tensor whose values do not fill its sizes (cut output) has array None."""
    out = []
    for block in text.split("Unranked Memref")[1:]:
        shape = [int(s) for s in re.search(r"sizes = \[([^\]]*)\]", block).group(1).split(",")
                 if s.strip()]
        data = block.split("data =", 1)[1]
        start, depth = data.index("["), 0
        for k in range(start, len(data)):
            depth += {"[": 1, "]": -1}.get(data[k], 0)
            if depth == 0:
                break
        vals = [float(v) for v in NUM.findall(data[start:k + 1])]
        full = depth == 0 and len(vals) == math.prod(shape)
        out.append((shape, np.array(vals, dtype=np.float64).reshape(shape) if full else None))
    return out


def format_memref(a):
    """`a` as printMemrefF32 prints it (6 significant digits)."""
    a = np.asarray(a, dtype=np.float32)
    strides = [int(np.prod(a.shape[i + 1:])) for i in range(a.ndim)]

    def nest(x):
        if x.ndim == 0:
            return "%g" % x
        if x.ndim == 1:
            return "[" + ",   ".join("%g" % v for v in x) + "]"
        return "[" + ", \n".join(nest(y) for y in x) + "]"
    body = nest(a) if a.ndim else "[%g]" % a
    return ("Unranked Memref base@ = 0x0 rank = %d offset = 0 sizes = [%s] strides = [%s] "
            "data = \n%s\n" % (a.ndim, ", ".join(map(str, a.shape)),
                               ", ".join(map(str, strides)), body))


def compare(label, got, want, rtol):
    """Prints one line; True when got matches want."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        print("%s: shape %s, expected %s FAIL" % (label, list(got.shape), list(want.shape)))
        return False
    scale = float(np.abs(want).max())
    if scale == 0:
        print("%s: the reference is zero (degenerate model) FAIL" % label)
        return False
    rel = float(np.abs(got - want).max()) / scale
    ok = math.isfinite(rel) and rel <= rtol
    print("%s: %s max|ref| %.3e max rel err %.1e %s" % (
        label, "x".join(map(str, got.shape)) or "scalar", scale, rel, "ok" if ok else "FAIL"))
    return ok


def names(o):
    return ["loss"] + ["d" + n for n in gs.result_names(o)]


def dims(o):
    """The sharded dimension of each result (None: replicated)."""
    return [None] + [gs.layout(o.form, n, o.scan) for n in gs.result_names(o)]


def as_results_of(o, res):
    """The single twin's results (loss, per-layer gradients, dx) in o's
    result order: with --scan, each weight's layers stacked [L, ...]."""
    res = list(res)
    L = o.layers
    if not o.scan or len(res) != 2 + len(gs.WEIGHTS) * L:
        return res
    per = {n: r for n, r in zip(gs.result_names(gs.Opts("single", layers=L)), res[1:])}
    return [res[0]] + [np.stack([per["%s_%d" % (w, l)] for l in range(L)])
                       for w in gs.WEIGHTS] + [per["x"]]


def check_ranks(o, ranks, single, rtol):
    """ranks: [[array per result] per rank]; single: [array per result]."""
    ok = True
    for k, (name, dim) in enumerate(zip(names(o), dims(o))):
        want = np.asarray(single[k])
        parts = np.split(want, o.ranks, axis=dim) if dim is not None else [want] * o.ranks
        for r in range(o.ranks):
            ok &= compare("rank %d %s%s" % (r, name, "" if dim is None else
                                            " (shard %d/%d of dim %d)" % (r, o.ranks, dim)),
                          ranks[r][k], parts[r], rtol)
        if dim is None:
            for r in range(1, o.ranks):
                ok &= compare("rank %d %s == rank 0's" % (r, name), ranks[r][k], ranks[0][k],
                              rtol)
    return ok


def torch_reference(o, values):
    """The single twin's loss and gradients by PyTorch autograd (float64),
    written independently of the hand-written backward."""
    import torch
    torch.set_num_threads(1)
    a = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in values.items()}
    S, B, D, H = o.seq, o.batch, o.width, o.heads
    dh = D // H
    y = a["x"].reshape(S * B, D)
    causal = torch.tril(torch.ones(S, S, dtype=torch.bool))
    for l in range(o.layers):
        w = {n: a["%s_%d" % (n, l)] for n in gs.WEIGHTS}
        q, k, v = [(y @ w[n]).reshape(S, B, H, dh) for n in ("wq", "wk", "wv")]
        sc = torch.einsum("ibhd,jbhd->bhij", q, k) / math.sqrt(dh)
        p = torch.softmax(sc.masked_fill(~causal, float("-inf")), dim=-1)
        att = torch.einsum("bhij,jbhd->ibhd", p, v).reshape(S * B, D)
        y = y + att @ w["wo"]
        y = y + torch.tanh(y @ w["w1"]) @ w["w2"]
    loss = ((y - a["t"].reshape(S * B, D)) ** 2).sum() / (S * B * D)
    order = gs.result_names(gs.Opts("single", layers=o.layers))
    grads = torch.autograd.grad(loss, [a[n] for n in order])
    return [loss.detach().numpy()] + [g.numpy() for g in grads]


def sizes_of(a, form=None):
    """a's options; with `form`, that form unrolled (the single twin)."""
    return gs.Opts(form or a.form, scan=a.scan and not form, seq=a.seq, batch=a.batch, width=a.width, heads=a.heads,
                   ffn=a.ffn, layers=a.layers, ranks=a.ranks)


def cmd_outputs(a, o):
    with open(a.single_out) as fh:
        single = parse_memrefs(fh.read())
    with open(a.ranks_out) as fh:
        printed = parse_memrefs(fh.read())
    n = len(names(o))
    label = "outputs (%s)" % o.cmdline()
    if o.scan and len(single) == 2 + len(gs.WEIGHTS) * o.layers:
        single = [(list(v.shape), v) for v in as_results_of(o, [v for _, v in single])]
    if len(single) != n or len(printed) != n * o.ranks:
        print("%s: %d single and %d rank tensors printed, expected %d and %d x %d FAIL" % (
            label, len(single), len(printed), n, o.ranks, n))
        return 1
    cut = [k for k, (_, v) in enumerate(single + printed) if v is None]
    if cut:
        print("%s: tensor %d printed incompletely FAIL" % (label, cut[0]))
        return 1
    ranks = [[v for _, v in printed[r * n:(r + 1) * n]] for r in range(o.ranks)]
    ok = check_ranks(o, ranks, as_results_of(o, [v for _, v in single]), a.rtol)
    print("%s: %s (loss and %d results on %d ranks, rtol %g)" % (
        label, "PASS" if ok else "FAIL", n - 1, o.ranks, a.rtol))
    return 0 if ok else 1


def cmd_simulate(a, o):
    values = gs.full_values(o)
    if a.print_ranks:
        for res in gs.simulate(o, values)[0]:
            for v in res:
                sys.stdout.write(format_memref(v))
        return 0
    single, _ = gs.simulate(sizes_of(a, "single"), values)
    ref = torch_reference(o, values)
    ok = True
    for name, got, want in zip(names(sizes_of(a, "single")), single[0], ref):
        ok &= compare("single %s vs torch" % name, got, want, a.rtol)
    single = [as_results_of(o, single[0])]
    configs = [(o.form, o.ranks)]
    if a.all:  # every sharded form at 2 and 4 ranks, one torch reference
        forms = ["fsdp"] if o.scan else gs.FORMS[1:]
        configs = [(f, n) for f in forms for n in (2, 4)]
    for form, ranks in configs:
        c = gs.Opts(form, scan=o.scan, seq=o.seq, batch=o.batch, width=o.width, heads=o.heads, ffn=o.ffn,
                    layers=o.layers, ranks=ranks)
        err = c.check()
        if err:
            sys.exit("check_sharded: " + err)
        res, counts = gs.simulate(c, values)
        good = check_ranks(c, res, single[0], a.rtol)
        print("collectives run: %s" % ", ".join("%s %d" % kv for kv in sorted(counts.items())))
        print("simulate (%s): %s (loss and %d results on %d ranks == single twin == torch, "
              "rtol %g)" % (c.cmdline(), "PASS" if good and ok else "FAIL", len(names(c)) - 1,
                            c.ranks, a.rtol))
        ok &= good
    return 0 if ok else 1


def cmd_single(a, o):
    values = gs.full_values(o)
    with tempfile.TemporaryDirectory() as tmp:
        model = a.mlir
        if not model:
            model = os.path.join(tmp, "single.mlir")
            with open(model, "w") as fh:
                fh.write(gs.model_text(o))
        harness = os.path.join(tmp, "single.harness.mlir")
        with open(harness, "w") as fh:
            fh.write(gs.harness_text(o))
        env = dict(os.environ)
        env["PATH"] = os.path.join(ROOT, "build", "bin") + os.pathsep + env.get("PATH", "")
        res = subprocess.run(["bash", os.path.join(ROOT, "test", "Integration", "CPU", "run.sh"),
                              model, harness], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("check_sharded: run.sh failed")
    if a.save:
        with open(a.save, "w") as fh:
            fh.write(res.stdout)
    printed = parse_memrefs(res.stdout)
    label = "single (%s)" % o.cmdline()
    if len(printed) != len(names(o)) or any(v is None for _, v in printed):
        print("%s: %d tensors printed, expected %d FAIL" % (label, len(printed), len(names(o))))
        return 1
    ref = as_results_of(o, torch_reference(o, values))
    sim, _ = gs.simulate(o, values)
    ok = True
    for name, (_, got), want, s in zip(names(o), printed, ref, sim[0]):
        ok &= compare("run.sh %s vs torch" % name, got, want, a.rtol)
        ok &= compare("run.sh %s vs simulation" % name, got, s, a.rtol)
    print("%s: %s (loss and %d gradients, rtol %g)" % (label, "PASS" if ok else "FAIL",
                                                       len(names(o)) - 1, a.rtol))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_out = sub.add_parser("outputs")
    p_out.add_argument("single_out")
    p_out.add_argument("ranks_out")
    p_sim = sub.add_parser("simulate")
    p_sim.add_argument("--print-ranks", action="store_true")
    p_sim.add_argument("--all", action="store_true",
                       help="every sharded form at 2 and 4 ranks (--form, --ranks ignored)")
    p_single = sub.add_parser("single")
    p_single.add_argument("--mlir", help="model function to run (default: generated)")
    p_single.add_argument("--save", help="also write run.sh's stdout here")
    for p in (p_out, p_sim, p_single):
        gs.add_size_args(p)
        p.add_argument("--rtol", type=float, default=1e-5)
    a = ap.parse_args()
    if a.cmd == "single":
        a.form = "single"
    o = gs.opts_from(a)
    return {"outputs": cmd_outputs, "simulate": cmd_simulate, "single": cmd_single}[a.cmd](a, o)


if __name__ == "__main__":
    sys.exit(main())
