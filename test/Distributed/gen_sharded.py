#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates a GPT-like training step, single-device and sharded (SPMD).

The model: L blocks over activations x of shape [S, B, D] (sequence-major,
Megatron's [s, b, h] layout, so a sequence shard is a contiguous block of
rows), each block

  x1 = x + causal_multi_head_attention(x)     (Wq, Wk, Wv, Wo: D x D, H heads)
  x2 = x1 + tanh(x1 W1) W2                    (W1: D x F, W2: F x D)

no biases, no layernorm; loss = sum((x_L - t)^2) / (S B D) (mean squared
error against a fixed target t).  Results: the loss, the gradients of every
weight (block 0's Wq Wk Wv Wo W1 W2, then block 1's, ...), then dloss/dx.
Forward and hand-written backward are one func.func in linalg on tensors
(as test/Loops/gen_loops.py writes them); inside, activations are [S*B, D]
matrices (rows s*B + b) and heads are views [S, B, H, D/H].

Forms (--form), each gradient having its parameter's layout:

  single  one device: the reference twin.
  dp      data parallel: x, t sharded along the batch (dim 1), weights
          replicated; every weight gradient and the loss all_reduce-d.
  fsdp    x, t as dp; every weight sharded along dim 0, all_gather-ed right
          before its forward use (the backward reads the same gathered
          value: the plan decides whether to keep or re-gather it); weight
          gradients reduce_scatter-ed back to the shard layout; loss
          all_reduce-d.
  tp      Megatron tensor parallel: x, t replicated; Wq Wk Wv W1 column
          parallel (dim 1 sharded: H/N heads per rank), Wo W2 row parallel
          (dim 0) followed by an all_reduce of the partial sums; in the
          backward the input gradient of each column-parallel part is
          all_reduce-d.  The loss is computed on replicated values.
  sp      Megatron sequence parallel on top of tp: x, t and the activations
          between the parts sharded along the sequence (dim 0); all_gather
          along the sequence before the column-parallel part,
          reduce_scatter after the row-parallel part, and the transposed
          collectives in the backward (all_gather of the output gradient,
          reduce_scatter of the input gradient); loss all_reduce-d.

--scan (single, fsdp): the blocks as JAX writes large models: weights
stacked [L, ...] (fsdp: each layer sharded along dim 0, so the stack along
dim 1), a forward scf.for over the layers that slices layer i (fsdp:
all_gathers it) and stacks at row i every value the backward reads (fsdp:
the gathered weights too, so the text gathers once per layer and the plan
decides whether to keep or re-gather), a reversed scf.for that writes each
layer's gradient (fsdp: reduce_scatter-ed) into row i of a stacked gradient
(docs/loops.md: the stack layout remat's scan recognizer matches).

Collectives per step with L blocks (K = 6 weights per block):
  dp: 6L + 1 all_reduce;  fsdp: 6L all_gather, 6L reduce_scatter, 1 all_reduce;
  tp: 4L all_reduce;      sp: 4L all_gather, 4L reduce_scatter, 1 all_reduce.

Every sharded module starts with `shard.grid @grid(shape = N)`.  The
harness (MODEL.harness.mlir) builds the FULL arguments with the single
twin's values (argfill's hash, the single twin's per-argument seeds), takes
rank r's shard at offset r * shard size (`shard.process_linear_index`),
calls the step and prints the loss, then every result (the rank's shards)
with printMemrefF32.

The same builder also simulates the program (--simulate, numpy): each value
holds one array per rank, ops run rank by rank and collectives combine the
ranks' arrays, so the simulation runs the text's own op sequence
(check_sharded.py compares it with the single twin and PyTorch).

Usage:
  gen_sharded.py --form single|dp|fsdp|tp|sp [--ranks N] [--scan] [--seq S
      --batch B --width D --heads H --ffn F --layers L] [-o MODEL.mlir]
    -o also writes MODEL.harness.mlir next to MODEL.mlir; without -o the
    model goes to stdout (--harness: the harness instead).
Standard library only, except the simulation (numpy); the ops' text is
test/Support/mlir_text.py's (imported by path).
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
from mlir_text import FILL_BODY_NAMES  # noqa: E402
from remat_import_torch.argfill import (HASH_A, HASH_C, HASH_MASK, Init,  # noqa: E402
                                        arg_seed, fill_arg, hash_values)
from remat_import_torch.mlir import V, float_text  # noqa: E402
sys.path.insert(0, HERE)
from gpt_block import RED, Gen, GptBlock, _np  # noqa: E402

FORMS = ["single", "dp", "fsdp", "tp", "sp"]
WEIGHTS = ["wq", "wk", "wv", "wo", "w1", "w2"]
# Megatron: column parallel (dim 1 sharded) then row parallel (dim 0).
TP_DIM = {"wq": 1, "wk": 1, "wv": 1, "wo": 0, "w1": 1, "w2": 0}
# The sharded dimension of x and t (and of dx) per form: batch, sequence.
X_DIM = {"single": None, "dp": 1, "fsdp": 1, "tp": None, "sp": 0}
DEFAULTS = dict(seq=16, batch=4, width=32, heads=4, ffn=64, layers=2, ranks=2)


def layout(form, name, scan=False):
    """The dimension of argument `name` (x, t, wq_0, w2_1, ...; with scan
    the stacked wq, w2, ...) sharded over the ranks in `form`, or None
    (replicated).  A gradient has its argument's layout."""
    if name in ("x", "t"):
        return X_DIM[form]
    if scan:  # [L, ...] stacks, fsdp shards each layer's dim 0
        return 1 if form == "fsdp" else None
    w = name.rsplit("_", 1)[0]
    return {"single": None, "dp": None, "fsdp": 0, "tp": TP_DIM[w], "sp": TP_DIM[w]}[form]


class Opts:
    def __init__(self, form="single", scan=False, **kw):
        self.form, self.scan = form, scan
        for k, v in DEFAULTS.items():
            setattr(self, k, kw.get(k) if kw.get(k) is not None else v)
        if form == "single":
            self.ranks = 1

    def check(self):
        """An error message for sizes the form cannot shard, or None."""
        S, B, D, H, F, R = self.seq, self.batch, self.width, self.heads, self.ffn, self.ranks
        if min(S, B, D, H, F, self.layers, R) < 1:
            return "sizes must be positive"
        if D % H:
            return "--width must divide by --heads"
        if self.scan and self.form not in ("single", "fsdp"):
            return "--scan takes --form single or fsdp"
        need = {"single": [], "dp": [("batch", B)], "fsdp": [("batch", B), ("width", D),
                                                            ("ffn", F)],
                "tp": [("heads", H), ("ffn", F)], "sp": [("heads", H), ("ffn", F), ("seq", S)]}
        for what, n in need[self.form]:
            if n % R:
                return "--%s (%d) must divide by --ranks (%d) for --form %s" % (
                    what, n, R, self.form)
        return None

    def cmdline(self):
        text = "--form %s" % self.form
        if self.form != "single":
            text += " --ranks %d" % self.ranks
        for k in ("seq", "batch", "width", "heads", "ffn", "layers"):
            if getattr(self, k) != DEFAULTS[k]:
                text += " --%s %d" % (k, getattr(self, k))
        return text + (" --scan" if self.scan else "")


def full_args(o):
    """(name, full shape, scale) of every argument, in order: x, t, then
    each block's weights.  Argument k's values use argfill's seed k in every
    form, so all forms see the single twin's numbers."""
    S, B, D, F = o.seq, o.batch, o.width, o.ffn
    args = [("x", [S, B, D], 1.0), ("t", [S, B, D], 1.0)]
    shapes = {"wq": [D, D], "wk": [D, D], "wv": [D, D], "wo": [D, D], "w1": [D, F],
              "w2": [F, D]}
    for l in range(o.layers):
        for w in WEIGHTS:
            shape = shapes[w]
            args.append(("%s_%d" % (w, l), shape, math.sqrt(3.0 / shape[0])))
    return args


def func_args(o):
    """(name, full shape) of the step's arguments: full_args, or with --scan
    x, t and the stacked weights wq, wk, ... [L, ...] (layer l of stack w
    holds the single twin's argument w_l)."""
    if not o.scan:
        return [(n, shape) for n, shape, _ in full_args(o)]
    per = {n: shape for n, shape, _ in full_args(o)}
    return [("x", per["x"]), ("t", per["t"])] + [
        (w, [o.layers] + per[w + "_0"]) for w in WEIGHTS]


def result_names(o):
    """The results after the loss: d<argument> for each weight, then dx."""
    if o.scan:
        return WEIGHTS + ["x"]
    return ["%s_%d" % (w, l) for l in range(o.layers) for w in WEIGHTS] + ["x"]


def local_shape(shape, dim, ranks):
    shape = list(shape)
    if dim is not None:
        shape[dim] //= ranks
    return shape


# --------------------------------------------------------------------------
# Argument values: argfill's hash, vectorised (numpy), checked against its
# plain-Python version.
# --------------------------------------------------------------------------
def arg_array(shape, k, scale):
    import numpy as np
    i = np.arange(math.prod(shape), dtype=np.int64)
    h = (i * HASH_A + arg_seed(k)) & HASH_MASK
    h ^= h >> 15
    h = (h * HASH_C) & HASH_MASK
    h ^= h >> 13
    u = (h >> 8).astype(np.float32) * np.float32(2.0 ** -23) - np.float32(1.0)
    scale = Init("uniform", scale=scale).scale  # the f32 constant the harness multiplies by
    v = u * np.float32(scale)
    head = hash_values(min(8, v.size), arg_seed(k), scale)
    assert v[:len(head)].tolist() == head, "numpy and argfill disagree on values"
    return v.reshape(shape)


# --------------------------------------------------------------------------
# The model.
# --------------------------------------------------------------------------
def build(o, sim_args=None):
    """The step of form o.form.  sim_args: {name: full array} to simulate
    (each rank gets its part), or None.  Returns (gen, header, results)."""
    form, R = o.form, o.ranks
    np = _np() if sim_args is not None else None
    g = Gen("gpt_" + form + ("_scan" if o.scan else ""), R, sim=sim_args is not None)
    S, B, D, H, L = o.seq, o.batch, o.width, o.heads, o.layers
    dh = D // H
    dp_like, tp_like = form in ("dp", "fsdp"), form in ("tp", "sp")
    Bl = B // R if dp_like else B          # batch on this rank
    Sl = S // R if form == "sp" else S     # sequence rows of x on this rank
    Hl = H // R if tp_like else H          # heads on this rank
    Nl = Sl * Bl                           # rows of x as held
    count = S * B * D                      # the loss is a mean over the global batch

    args = {}
    for name, shape in func_args(o):
        dim = layout(form, name, o.scan)
        v = g.arg(name, local_shape(shape, dim, R))
        if sim_args is not None:
            full = sim_args[name].astype(np.float64)
            v.data = np.split(full, R, axis=dim) if dim is not None else [full] * R
        args[name] = v

    g.comment("x, t: [S, B, D] -> [S*B, D] (rows s*B + b)")
    x = g.collapse("x_rows", args["x"], [Nl, D], "[[0, 1], [2]]")
    t = g.collapse("t_rows", args["t"], [Nl, D], "[[0, 1], [2]]")

    blk = GptBlock(g, form, S, Bl, Hl, dh)
    block_forward, block_backward = blk.forward, blk.backward

    def loss_and_seed(x):
        g.comment("loss = sum((x_L - t)^2) / (S B D)")
        inv, two = float_text(1.0 / count), float_text(2.0 / count)
        loss = g.generic("loss", [x, t], ["id2", "id2", "red2"], [RED, RED], [
            "%%kinv = arith.constant %s : f32" % inv, "%e = arith.subf %in, %in2 : f32",
            "%e2 = arith.mulf %e, %e : f32", "%lv = arith.mulf %e2, %kinv : f32",
            "%r = arith.addf %out, %lv : f32"], [],
            lambda y, tt: np.asarray(((y - tt) ** 2).sum() / count), init=g.filled("loss", []))
        if form in ("dp", "fsdp", "sp"):
            loss = g.all_reduce("loss_sum", loss)
        dy = g.ew("dy", [x, t], ["%%ktwo = arith.constant %s : f32" % two,
                                 "%e = arith.subf %in, %in2 : f32",
                                 "%r = arith.mulf %e, %ktwo : f32"],
                  lambda y, tt: (y - tt) * (2.0 / count))
        return loss, dy

    if o.scan:
        grads = scan_layers(g, o, args, x, block_forward, block_backward, loss_and_seed)
        loss, dx = grads.pop("loss"), grads.pop("x")
        order = WEIGHTS
    else:
        saved, ws = [], []
        for l in range(L):
            sfx = "_%d" % l

            def use(w, l=l):
                """Weight w of block l; fsdp gathers its dim-0 parts right
                before the first use (the backward reads the same value)."""
                if form == "fsdp":
                    return g.all_gather("%s_%d_g" % (w, l), args["%s_%d" % (w, l)], 0)
                return args["%s_%d" % (w, l)]
            x, sv, W = block_forward(x, use, sfx)
            saved.append(sv)
            ws.append(W)
        loss, dx = loss_and_seed(x)
        grads = {}
        for l in reversed(range(L)):
            def grad(w, gw, l=l):
                """A weight gradient in its parameter's layout."""
                name = "%s_%d" % (w, l)
                if form == "dp":
                    gw = g.all_reduce("d%s_sum" % name, gw)
                elif form == "fsdp":
                    gw = g.reduce_scatter("d%s_rs" % name, gw, 0)
                grads[name] = gw
            dx = block_backward(dx, saved[l], ws[l], "_%d" % l, grad)
        order = result_names(o)[:-1]
    dx3 = g.expand("dx", dx, local_shape([S, B, D], X_DIM[form], R), "[[0, 1], [2]]")

    results = [loss] + [grads[n] for n in order] + [dx3]
    what = {"single": "one device (the reference twin)",
            "dp": "data parallel: x, t sharded along the batch, weights replicated, "
                  "gradients and loss all_reduce-d",
            "fsdp": "FSDP: x, t sharded along the batch, weights along dim %d, all_gather-ed "
                    "before use, gradients reduce_scatter-ed, loss all_reduce-d"
                    % (1 if o.scan else 0),
            "tp": "Megatron tensor parallel: Wq Wk Wv W1 column parallel, Wo W2 row parallel "
                  "(all_reduce of partial sums), x replicated",
            "sp": "Megatron sequence parallel: tp with x and the activations between parts "
                  "sharded along the sequence (all_gather / reduce_scatter)"}[form]
    if o.scan:
        what += "; the blocks as an scf.for over stacked weights [L, ...] (a scan), the " \
                "backward a reversed scf.for writing stacked gradients"
    header = ["GPT-like step: %d blocks of causal attention (%d heads of %d) and a tanh MLP "
              "(%d -> %d -> %d)," % (L, H, dh, D, o.ffn, D),
              "each with a residual; x, t [S=%d, B=%d, D=%d]; loss = sum((x_L - t)^2) / (S B D)."
              % (S, B, D),
              "Form %s on %d rank%s: %s." % (form, R, "s" if R > 1 else "", what),
              "Results: loss, d(%s)%s, dx; each in its argument's layout."
              % (" ".join(WEIGHTS), "" if o.scan else " for each block"),
              "Arguments (as held by one rank): " + ", ".join(
                  "%s %s" % (a.ssa, a.ty) for a in g.args)]
    return g, header, results


def scan_layers(g, o, args, x, block_forward, block_backward, loss_and_seed):
    """The blocks as a scan: a forward scf.for over the L layers carrying the
    activation and stacking, at row i, every value the backward reads
    (fsdp: also each all_gather-ed weight slice, so the text gathers once
    per layer and the plan decides whether to keep or re-gather it); a
    reversed scf.for carrying dloss/dx and writing each layer's gradient
    (fsdp: reduce_scatter-ed) into row i of a stacked gradient.  Returns
    {"loss", "x" (dloss/dx), weight: stacked gradient}."""
    fsdp, L = o.form == "fsdp", o.layers
    shapes = {}

    def fwd(i, cur, stack, load):
        def use(w):
            sl = g.slice_at(w + "_i", args[w], i)
            if not fsdp:
                return sl
            gw = g.all_gather(w + "_g", sl, 0)
            stack(w + "_g", gw)
            return gw
        x2, sv, _ = block_forward(cur[0], use, "_l")
        for k in SAVED:
            stack(k, sv[k])
        return [x2]
    # The stacked shapes: what one iteration computes (a dry run on a copy
    # of the builder's state would do; the shapes are known here).
    S, B, D, H = o.seq, o.batch, o.width, o.heads
    R, dh = o.ranks, D // H
    Bl = B // R if fsdp else B
    heads = [S, Bl, H, dh]
    N = S * Bl
    shapes = {"xa": [N, D], "q4": heads, "k4": heads, "v4": heads, "p": [Bl, H, S, S],
              "o2": [N, D], "x1a": [N, D], "h": [N, o.ffn]}
    stacks = [(k, shapes[k]) for k in SAVED]
    full = {w: args[w].shape[1:] for w in WEIGHTS}
    if fsdp:  # the gathered slices: [D, D], [D, F], [F, D]
        full = {w: [args[w].shape[1] * R, args[w].shape[2]] for w in WEIGHTS}
        stacks = [(w + "_g", full[w]) for w in WEIGHTS] + stacks
    g.comment("forward: layer i = 0 .. L-1 (a scan over the stacked weights)")
    (xL,), st = g.loop("fwd", L, [("x", x)], fwd, stacks=stacks)
    loss, dy = loss_and_seed(xL)

    gshape = {w: args[w].shape[1:] for w in WEIGHTS}  # this rank's part of a layer

    def bwd(i, cur, stack, load):
        sv = {k: load(k) for k in SAVED}
        W = {w: load(w + "_g") if fsdp else g.slice_at(w + "_r", args[w], i) for w in WEIGHTS}

        def grad(w, gw):
            if fsdp:
                gw = g.reduce_scatter("d%s_rs" % w, gw, 0)
            stack("d" + w, gw)
        return [block_backward(cur[0], sv, W, "_l", grad)]
    g.comment("backward: layer i = L-1 .. 0, per-layer gradients stacked at row i")
    (dx,), gst = g.loop("bwd", L, [("d", dy)], bwd, reverse=True, reads=st,
                        stacks=[("d" + w, gshape[w]) for w in WEIGHTS])
    out = {"loss": loss, "x": dx}
    out.update({w: gst["d" + w] for w in WEIGHTS})
    return out


# What the backward of a block reads (block_forward's second result).
SAVED = ["xa", "q4", "k4", "v4", "p", "o2", "x1a", "h"]


def model_text(o):
    g, header, results = build(o)
    hdr = ["GENERATED by test/Distributed/gen_sharded.py; do not edit.",
           "Regenerate: python3 test/Distributed/gen_sharded.py %s" % o.cmdline(), ""]
    return g.text(hdr + header, results)


def harness_text(o):
    """@main: the full arguments (the single twin's values), rank r's shard
    of each sharded one, the call, printMemrefF32 of every result."""
    g, _, results = build(o)
    return harness_for(o, g, results, lambda name: layout(o.form, name, o.scan), o.ranks,
                       "gen_sharded.py", o.cmdline())


def harness_for(o, g, results, dim_of, R, generator, cmdline):
    """harness_text for function g (results `results`) on R ranks whose
    arguments are func_args(o)'s, rank r holding part r along dim_of(name)
    (None: the whole argument)."""
    lines = ["// GENERATED by test/Distributed/%s; do not edit." % generator,
             "// Harness of @%s (%s): concatenate with the model and run (run.sh%s)."
             % (g.name, cmdline, "" if R == 1 else ", RANKS=%d" % R),
             "// Builds the FULL arguments (u(i) = hash(i, seed) in [-1, 1) of the row-major",
             "// linear index times a scale, see argfill.py; argument k has seed k in every form),"]
    lines += ["// gives this rank its part (offset rank * part size along the sharded",
              "// dimension), prints the loss then every result (this rank's parts)."] if R > 1 else [
              "// prints the loss then every gradient."]
    lines += ["func.func private @printMemrefF32(tensor<*xf32>)", "", "func.func @main() {"]
    if R > 1:
        lines.append("  %rank = shard.process_linear_index on @grid : index")
    seeds = {name: (k, shape, sc) for k, (name, shape, sc) in enumerate(full_args(o))}
    call = []
    for (name, shape), v in zip(func_args(o), g.args):
        dim = dim_of(name)
        assert name not in FILL_BODY_NAMES
        full = V("%" + name + ("_full" if dim is not None else ""), shape)
        if name in seeds:
            k, _, sc = seeds[name]
            lines += fill_arg(full, Init("uniform", seed=arg_seed(k), scale=sc))
        else:  # a stack [L, ...] of the single twin's per-layer arguments
            prev = V(full.ssa + "_e", shape)
            lines.append("  %s = tensor.empty() : %s" % (prev.ssa, prev.ty))
            for l in range(o.layers):
                k, lshape, sc = seeds["%s_%d" % (name, l)]
                layer = V("%%%s_%d" % (name, l), lshape)
                lines += fill_arg(layer, Init("uniform", seed=arg_seed(k), scale=sc))
                nxt = V(full.ssa if l == o.layers - 1 else "%s_s%d" % (full.ssa, l), shape)
                lines.append("  %s = tensor.insert_slice %s into %s[%d, 0, 0] [1, %s] [1, 1, 1] "
                             ": %s into %s" % (nxt.ssa, layer.ssa, prev.ssa, l,
                                               ", ".join(map(str, lshape)), layer.ty, nxt.ty))
                prev = nxt
        if dim is None:
            call.append(full)
            continue
        off = "%%%s_off" % name
        lines.append("  %s_size = arith.constant %d : index" % (off, v.shape[dim]))
        lines.append("  %s = arith.muli %%rank, %s_size : index" % (off, off))
        part = V("%" + name, v.shape)
        offs = ["0"] * len(shape)
        offs[dim] = off
        # The shard is copied into a buffer of its own, so the full value
        # dies here: a view would keep it alive through the call and the
        # measured peak would count every full parameter.
        lines.append("  %s_view = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            part.ssa, full.ssa, ", ".join(offs), ", ".join(map(str, v.shape)),
            ", ".join(["1"] * len(shape)), full.ty, part.ty))
        lines.append("  %s_own = tensor.empty() : %s" % (part.ssa, part.ty))
        lines.append("  %s = linalg.copy ins(%s_view : %s) outs(%s_own : %s) -> %s" % (
            part.ssa, part.ssa, part.ty, part.ssa, part.ty, part.ty))
        call.append(part)
    res = ["%%res%d" % i for i in range(len(results))]
    lines.append("  %s = func.call @%s(%s)" % (", ".join(res), g.name,
                                                ", ".join(v.ssa for v in call)))
    lines.append("      : (%s) -> (%s)" % (", ".join(v.ty for v in call),
                                            ", ".join(r.ty for r in results)))
    for r, v in zip(res, results):
        lines.append("  %s_u = tensor.cast %s : %s to tensor<*xf32>" % (r, r, v.ty))
        lines.append("  func.call @printMemrefF32(%s_u) : (tensor<*xf32>) -> ()" % r)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def full_values(o):
    """{name: full float32 array} of every argument (the harness's values):
    the single twin's, and with --scan also the stacked weights."""
    vals = {name: arg_array(shape, k, sc) for k, (name, shape, sc) in enumerate(full_args(o))}
    if o.scan:
        np = _np()
        for w in WEIGHTS:
            vals[w] = np.stack([vals["%s_%d" % (w, l)] for l in range(o.layers)])
    return vals


def simulate(o, values=None):
    """Runs the step of form o.form on its ranks (numpy, float64):
    [[loss, results...] per rank] as arrays, and the collective counts."""
    g, _, results = build(o, values if values is not None else full_values(o))
    return [[r.data[k] for r in results] for k in range(o.ranks)], g.counts


def add_size_args(ap):
    ap.add_argument("--form", choices=FORMS, default="single")
    ap.add_argument("--scan", action="store_true",
                    help="single, fsdp: the blocks as an scf.for over stacked weights")
    ap.add_argument("--ranks", "-n", type=int, help="N, the grid size (default 2)")
    ap.add_argument("--seq", type=int, help="S, the sequence length (default 16)")
    ap.add_argument("--batch", type=int, help="B, sequences per step (default 4)")
    ap.add_argument("--width", type=int, help="D, the model width (default 32)")
    ap.add_argument("--heads", type=int, help="H, attention heads (default 4)")
    ap.add_argument("--ffn", type=int, help="F, the MLP width (default 64)")
    ap.add_argument("--layers", type=int, help="L, blocks (default 2)")


def opts_from(a):
    o = Opts(a.form, scan=a.scan, seq=a.seq, batch=a.batch, width=a.width, heads=a.heads, ffn=a.ffn,
             layers=a.layers, ranks=a.ranks)
    err = o.check()
    if err:
        sys.exit("gen_sharded: " + err)
    return o


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_size_args(ap)
    ap.add_argument("--harness", action="store_true",
                    help="without -o: write the harness instead of the model")
    ap.add_argument("-o", "--output", help="MODEL.mlir (its harness: MODEL.harness.mlir)")
    a = ap.parse_args()
    o = opts_from(a)
    if a.output:
        stem = a.output[:-5] if a.output.endswith(".mlir") else a.output
        with open(a.output, "w") as fh:
            fh.write(model_text(o))
        with open(stem + ".harness.mlir", "w") as fh:
            fh.write(harness_text(o))
    else:
        sys.stdout.write(harness_text(o) if a.harness else model_text(o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
