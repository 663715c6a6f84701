# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The GPT-like block of gen_sharded.py as ops of a function's text: the
builder (Gen: mlir_text's FuncText with the attention contractions, the
collectives, and a numpy simulation of every rank), and GptBlock, one
block's forward and hand-written backward in a form (single, dp, fsdp, tp,
sp). gen_sharded.py writes whole steps of it; gen_pipeline_gpt.py the
stages of a pipeline."""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
import mlir_text  # noqa: E402
from mlir_text import MAC  # noqa: E402
from remat_import_torch.mlir import V, float_text  # noqa: E402

# --------------------------------------------------------------------------
# Indexing maps: mlir_text's and the attention ones.  Attention tensors: q,
# k, v, o as [S, B, H, dh] views (i or j, b, h, d); scores and probabilities
# as [B, H, S, S] (b, h, i, j).
# --------------------------------------------------------------------------
MAPS = dict(mlir_text.MAPS, **{
    "id4": "affine_map<(b, h, i, j) -> (b, h, i, j)>",
    "row4": "affine_map<(b, h, i, j) -> (b, h, i)>",
    # out[b, h, i, j] = sum_d a[i, b, h, d] * c[j, b, h, d]   (q k^T, do v^T)
    "qk_a": "affine_map<(b, h, i, j, d) -> (i, b, h, d)>",
    "qk_c": "affine_map<(b, h, i, j, d) -> (j, b, h, d)>",
    "qk_o": "affine_map<(b, h, i, j, d) -> (b, h, i, j)>",
    # out[i, b, h, d] = sum_j p[b, h, i, j] * c[j, b, h, d]   (p v, ds k)
    "pv_p": "affine_map<(i, b, h, d, j) -> (b, h, i, j)>",
    "pv_c": "affine_map<(i, b, h, d, j) -> (j, b, h, d)>",
    "pv_o": "affine_map<(i, b, h, d, j) -> (i, b, h, d)>",
    # out[j, b, h, d] = sum_i p[b, h, i, j] * c[i, b, h, d]   (p^T do, ds^T q)
    "tp_p": "affine_map<(j, b, h, d, i) -> (b, h, i, j)>",
    "tp_c": "affine_map<(j, b, h, d, i) -> (i, b, h, d)>",
    "tp_o": "affine_map<(j, b, h, d, i) -> (j, b, h, d)>",
})
PAR, RED = "parallel", "reduction"


class Gen(mlir_text.FuncText):
    """Text of one func.func, and optionally its simulation: with `sim`,
    every value's .data is a list of one numpy array per rank."""

    MAPS = MAPS

    def __init__(self, name, ranks, sim=False):
        super().__init__(name)
        self.R, self.sim = ranks, sim
        self.arg_names = []
        self.counts = {}

    def op(self, result, text, data=None):
        result.data = data  # run()'s per-rank arrays (None: not simulating)
        return super().op(result, text)

    def run(self, fn, ins):
        """fn applied rank by rank (None unless simulating)."""
        if not self.sim:
            return None
        return [fn(*[a.data[r] for a in ins]) for r in range(self.R)]

    def const_name(self, value, ty):
        if ty == "index":
            return "c%d" % value
        return {0.0: "zero", 1.0: "one", float("-inf"): "neg_inf"}.get(value, "cst")

    def arg(self, name, shape):
        v = V(self.fresh(name), shape)
        self.args.append(v)
        self.arg_names.append(name)
        return v

    def preamble(self):
        return ["shard.grid @grid(shape = %d)" % self.R, ""] if self.R > 1 else []

    # -- ops ----------------------------------------------------------------
    def contract(self, base, a, c, kind, shape):
        """The attention contractions (maps `kind`_a/_c/_o or _p/_c/_o)."""
        first = "p" if kind in ("pv", "tp") else "a"
        spec = {"qk": "ibhd,jbhd->bhij", "pv": "bhij,jbhd->ibhd", "tp": "bhij,ibhd->jbhd"}[kind]

        def fn(x, y):
            return _np().einsum(spec, x, y)
        return self.generic(base, [a, c], [kind + "_" + first, kind + "_c", kind + "_o"],
                            [PAR] * 4 + [RED], MAC, shape, fn, init=self.filled(base, shape))

    def expand(self, base, v, shape, groups):
        r = self.value(base, shape)
        return self.op(r, "tensor.expand_shape %s %s output_shape [%s] : %s into %s" % (
            v.ssa, groups, ", ".join(map(str, shape)), v.ty, r.ty),
            self.run(lambda x: x.reshape(shape), [v]))

    def collapse(self, base, v, shape, groups):
        r = self.value(base, shape)
        return self.op(r, "tensor.collapse_shape %s %s : %s into %s" % (v.ssa, groups, v.ty, r.ty),
                       self.run(lambda x: x.reshape(shape), [v]))

    def loop(self, name, T, carries, body, reverse=False, stacks=(), reads=None):
        """mlir_text's scan_for (as test/Loops/gen_loops.py writes scans),
        stacks [(base, row shape)] starting from a tensor.empty.  When
        simulating, the body runs T times with idx an int (the text written
        then is not the loop's)."""
        st0 = self.empty_stacks(T, stacks)
        if self.sim:
            np = _np()
            for _, e in st0:
                e.data = [np.zeros(e.shape)] * self.R
            cur, cur_st = [v for _, v in carries], dict(st0)
            for k in range(T):
                idx = T - 1 - k if reverse else k

                def stack(base, v, idx=idx):
                    cur_st[base] = self.insert_at("st_" + base, v, cur_st[base], idx)

                def load(base, idx=idx):
                    return self.slice_at(base + "_i", reads[base], idx)
                cur = body(idx, cur, stack, load)
            return cur, cur_st
        return self.scan_for(name, T, carries, st0, body, reverse, reads)

    # -- collectives (simulated over the ranks' arrays) -----------------------
    def count(self, kind):
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def all_gather(self, base, v, axis):
        shape = list(v.shape)
        shape[axis] *= self.R
        r = self.value(base, shape)
        self.count("all_gather")
        data = None
        if self.sim:
            full = _np().concatenate(v.data, axis=axis)
            data = [full] * self.R
        return self.op(r, "shard.all_gather %s on @grid grid_axes = [0] gather_axis = %d : %s -> %s"
                       % (v.ssa, axis, v.ty, r.ty), data)

    def all_reduce(self, base, v):
        r = self.value(base, v.shape)
        self.count("all_reduce")
        data = [sum(v.data[1:], v.data[0])] * self.R if self.sim else None
        return self.op(r, "shard.all_reduce %s on @grid grid_axes = [0] reduction = sum : %s -> %s"
                       % (v.ssa, v.ty, r.ty), data)

    def reduce_scatter(self, base, v, axis):
        shape = list(v.shape)
        shape[axis] //= self.R
        r = self.value(base, shape)
        self.count("reduce_scatter")
        data = None
        if self.sim:
            data = _np().split(sum(v.data[1:], v.data[0]), self.R, axis=axis)
        return self.op(r, "shard.reduce_scatter %s on @grid grid_axes = [0] scatter_axis = %d "
                       ": %s -> %s" % (v.ssa, axis, v.ty, r.ty), data)


def _np():
    import numpy
    return numpy


# Elementwise bodies.  Names defined in bodies must not be value names.
TANH = ["%r = math.tanh %in : f32"]
TANH_GRAD = ["%y2 = arith.mulf %in2, %in2 : f32", "%bone = arith.constant 1.0 : f32",
             "%s1 = arith.subf %bone, %y2 : f32", "%r = arith.mulf %in, %s1 : f32"]


class GptBlock:
    """One block's ops in form `form` on a rank holding Bl sequences of S
    rows and Hl heads of dh: x1 = x + attention(x), x2 = x1 + tanh(x1 W1) W2
    (gen_sharded.py's docstring)."""

    def __init__(self, g, form, S, Bl, Hl, dh):
        self.g, self.form = g, form
        self.S, self.Bl, self.Hl, self.dh = S, Bl, Hl, dh
        self.N = S * Bl                      # rows of x as the matmuls read it
        self.heads = [S, Bl, Hl, dh]
        self.scale = 1.0 / math.sqrt(dh)

    def partial_sum(self, base, sfx, v):
        """A row-parallel part's partial results summed: all_reduce (tp),
        reduce_scatter along the sequence (sp); v itself otherwise."""
        if self.form == "tp":
            return self.g.all_reduce(base + "_sum" + sfx, v)
        if self.form == "sp":
            return self.g.reduce_scatter(base + "_rs" + sfx, v, 0)
        return v

    def forward(self, x, use, sfx):
        """One block on x (this rank's rows); use(w) gives weight w ("wq",
        ...) as the matmuls read it, right before its first use.  Returns
        the block's output, what the backward reads and the weights."""
        g, form, S, Bl, Hl = self.g, self.form, self.S, self.Bl, self.Hl
        N, heads, scale, Dl = self.N, self.heads, self.scale, self.Hl * self.dh
        np = _np() if g.sim else None
        g.comment("block%s: attention" % sfx)
        xa = g.all_gather("xg" + sfx, x, 0) if form == "sp" else x
        W, qkv = {}, []
        for w in ("wq", "wk", "wv"):
            W[w] = use(w)
            p = g.matmul(w[1] + sfx, xa, W[w])
            qkv.append(g.expand(w[1] + "4" + sfx, p, heads, "[[0, 1], [2, 3]]"))
        q4, k4, v4 = qkv
        sc = g.contract("sc" + sfx, q4, k4, "qk", [Bl, Hl, S, S])
        mx = g.generic("mx" + sfx, [sc], ["id4", "row4"], [PAR] * 3 + [RED],
                       ["%r = arith.maximumf %out, %in : f32"], [Bl, Hl, S],
                       lambda a: a.max(axis=3), init=g.filled("mx" + sfx, [Bl, Hl, S],
                                                             float("-inf")))

        def masked_exp(a, m):
            i = np.arange(S)
            keep = i[None, :] <= i[:, None]      # [i, j]: j <= i
            return np.where(keep, np.exp((a - m[..., None]) * scale), 0.0)
        # p = softmax_j(scale * sc) over j <= i; the row max keeps exp small.
        ex = g.generic("ex" + sfx, [sc, mx], ["id4", "row4", "id4"], [PAR] * 4, [
            "%ii = linalg.index 2 : index", "%jj = linalg.index 3 : index",
            "%%kscale = arith.constant %s : f32" % float_text(scale),
            "%bzero = arith.constant 0.0 : f32", "%dl = arith.subf %in, %in2 : f32",
            "%sl = arith.mulf %dl, %kscale : f32", "%el = math.exp %sl : f32",
            "%keep = arith.cmpi ule, %jj, %ii : index",
            "%r = arith.select %keep, %el, %bzero : f32"], [Bl, Hl, S, S], masked_exp)
        den = g.generic("den" + sfx, [ex], ["id4", "row4"], [PAR] * 3 + [RED],
                        ["%r = arith.addf %out, %in : f32"], [Bl, Hl, S],
                        lambda a: a.sum(axis=3), init=g.filled("den" + sfx, [Bl, Hl, S]))
        pr = g.generic("p" + sfx, [ex, den], ["id4", "row4", "id4"], [PAR] * 4,
                       ["%r = arith.divf %in, %in2 : f32"], [Bl, Hl, S, S],
                       lambda a, d: a / d[..., None])
        o4 = g.contract("o4" + sfx, pr, v4, "pv", heads)
        o2 = g.collapse("o" + sfx, o4, [N, Dl], "[[0, 1], [2, 3]]")
        W["wo"] = use("wo")
        a = g.matmul("a" + sfx, o2, W["wo"])
        a = self.partial_sum("a", sfx, a)
        x1 = g.add("x1" + sfx, x, a)
        g.comment("block%s: MLP" % sfx)
        x1a = g.all_gather("x1g" + sfx, x1, 0) if form == "sp" else x1
        W["w1"] = use("w1")
        u = g.matmul("u" + sfx, x1a, W["w1"])
        hh = g.ew("h" + sfx, [u], TANH, np.tanh if np else None)
        W["w2"] = use("w2")
        mm = g.matmul("m" + sfx, hh, W["w2"])
        mm = self.partial_sum("m", sfx, mm)
        x2 = g.add("x2" + sfx, x1, mm)
        return x2, dict(xa=xa, q4=q4, k4=k4, v4=v4, p=pr, o2=o2, x1a=x1a, h=hh), W

    def backward(self, dx, sv, W, sfx, grad):
        """The backward of one block: dloss/dx from dloss/d(output); grad(w,
        value) receives each weight's gradient (this rank's contribution)."""
        g, form, S, Bl, Hl = self.g, self.form, self.S, self.Bl, self.Hl
        N, heads, scale, Dl = self.N, self.heads, self.scale, self.Hl * self.dh
        g.comment("block%s backward: MLP" % sfx)
        dma = g.all_gather("dm_g" + sfx, dx, 0) if form == "sp" else dx
        grad("w2", g.matmul_tn("dw2" + sfx, sv["h"], dma))
        dh_ = g.matmul_nt("dh" + sfx, dma, W["w2"])
        du = g.ew("du" + sfx, [dh_, sv["h"]], TANH_GRAD, lambda d, y: d * (1.0 - y * y))
        grad("w1", g.matmul_tn("dw1" + sfx, sv["x1a"], du))
        dx1p = g.matmul_nt("dx1p" + sfx, du, W["w1"])
        dx1p = self.partial_sum("dx1p", sfx, dx1p)
        dx1 = g.add("dx1" + sfx, dx, dx1p)
        g.comment("block%s backward: attention" % sfx)
        da = g.all_gather("da_g" + sfx, dx1, 0) if form == "sp" else dx1
        grad("wo", g.matmul_tn("dwo" + sfx, sv["o2"], da))
        do2 = g.matmul_nt("do" + sfx, da, W["wo"])
        do4 = g.expand("do4" + sfx, do2, heads, "[[0, 1], [2, 3]]")
        dpp = g.contract("dp" + sfx, do4, sv["v4"], "qk", [Bl, Hl, S, S])
        dv4 = g.contract("dv4" + sfx, sv["p"], do4, "tp", heads)
        rd = g.generic("rd" + sfx, [sv["p"], dpp], ["id4", "id4", "row4"], [PAR] * 3 + [RED],
                       MAC, [Bl, Hl, S], lambda p, d: (p * d).sum(axis=3),
                       init=g.filled("rd" + sfx, [Bl, Hl, S]))
        # ds = scale * p (dp - sum_j p dp): masked entries have p = 0.
        ds = g.generic("ds" + sfx, [sv["p"], dpp, rd], ["id4", "id4", "row4", "id4"], [PAR] * 4, [
            "%%kscale = arith.constant %s : f32" % float_text(scale),
            "%dd = arith.subf %in2, %in3 : f32", "%pd = arith.mulf %in, %dd : f32",
            "%r = arith.mulf %pd, %kscale : f32"], [Bl, Hl, S, S],
            lambda p, d, r: p * (d - r[..., None]) * scale)
        dq4 = g.contract("dq4" + sfx, ds, sv["k4"], "pv", heads)
        dk4 = g.contract("dk4" + sfx, ds, sv["q4"], "tp", heads)
        dxp = None
        for w, d4 in (("wq", dq4), ("wk", dk4), ("wv", dv4)):
            d2 = g.collapse("d" + w[1] + sfx, d4, [N, Dl], "[[0, 1], [2, 3]]")
            grad(w, g.matmul_tn("d%s" % w + sfx, sv["xa"], d2))
            c = g.matmul_nt("dx%s" % w[1] + sfx, d2, W[w])
            dxp = c if dxp is None else g.add("dxq" + ("k" if w == "wk" else "kv") + sfx,
                                              dxp, c)
        dxp = self.partial_sum("dxqkv", sfx, dxp)
        return g.add("dx" + sfx, dx1, dxp)
