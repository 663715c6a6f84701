#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates a pipeline-parallel step of gen_sharded.py's GPT-like blocks.

Issue 50's GPipe and 1F1B schedules (gen_pipeline.py's docstring: the same
iterations, masks and shifts) over the block stack of gen_sharded.py
(causal multi-head attention and a tanh MLP, each with a residual; the
block's text is gpt_block.py's, the one gen_sharded.py writes). P stages
of L blocks each: stage s holds blocks s L .. s L + L - 1, its slice of the
stacked weights wq, wk, wv, wo, w1, w2 [P L, ...] (each argument [L, ...]).
The step's batch of M b sequences (x, t: [S, M b, D], replicated; stage 0
reads x, the last stage t) runs as M micro-batches of b sequences
(micro-batch m: columns m b .. m b + b - 1), each [S b, D] rows between
the stages. loss = sum((x_PL - t)^2) / (S M b D), the single twin's.

  gpipe  a forward scf.for of T = M + P - 1 iterations (stage s on
         micro-batch i - s, the bubble computing on what it holds), every
         value the blocks' backward reads stacked at row i (a scan), the
         output shift.shift-ed to the next stage; a reversed scf.for that
         runs the blocks' backward on row i, the output gradient masked to
         zero in the bubble, and shifts the input gradient back.
  1f1b   one scf.for of T = M + 2(P - 1) iterations in lock-step, a forward
         slot (micro-batch f = k - s) then a backward slot (b = k + s -
         2(P - 1)); what the backward reads is kept in rings of K = min(2P -
         1, M) slots (micro-batch j in slot j mod K, zero-filled; a masked
         forward slot writes back what its slot holds).
  1f1b-async  PyTorch's Schedule1F1B (async_1f1b.py's docstring): stage s
         runs W = min(P-1-s, M) warm-up forwards in one scf.for of M + W
         iterations, shard.send / shard.recv under branches on the stage,
         rings of min(P - s, M) rows sized by the stage index.

In the lock-step forms every rank runs every shift; the stage index
enters through arith.select and masks only. Results: the loss (all_reduce-d over the stages) and the
stage's weight gradients [L, ...] in the order wq wk wv wo w1 w2.

--single writes the single twin instead: gen_sharded.py --form single
--scan with P L layers and M b sequences (its results: the loss, the
stacked gradients [P L, ...], dx; stage s's are rows s L .. s L + L - 1,
compare_stages.py ... --skip-last 1). The harness builds the twin's
arguments and gives rank s rows s L .. s L + L - 1 of each stacked weight.

Usage:
  gen_pipeline_gpt.py [--pipeline gpipe|1f1b|1f1b-async] [--stages P] [--microbatches M]
      [--layers-per-stage L] [--seq S] [--micro-batch-size b] [--width D]
      [--heads H] [--ffn F] [--single] [-o MODEL.mlir]
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean
import gen_sharded  # noqa: E402
from gen_sharded import WEIGHTS, func_args, harness_for, local_shape  # noqa: E402
from gpt_block import MAPS, Gen, GptBlock  # noqa: E402
from mlir_text import write_output  # noqa: E402
from remat_import_torch.mlir import V, float_text  # noqa: E402

# What the backward of a block reads (gen_sharded.SAVED), and the stage's
# output (the last stage's loss gradient).
SAVED = gen_sharded.SAVED


class PipeGen(Gen):
    """Gen with the pipeline's index arithmetic, masks and shifts."""

    MAPS = dict(MAPS, red0="affine_map<() -> ()>", red4="affine_map<(b, h, i, j) -> ()>")

    def ix(self, base, text):
        """An index (or i1) value `base` = text."""
        name = self.fresh(base)
        self.emit("%s = %s" % (name, text))
        return name

    def cond_generic(self, base, ins, cond, body, out, iters):
        """A linalg.generic over `ins` (tensors of out's shape, or a
        reduction into out) and the i1 `cond`; body lines use %in, %in2 and
        %cv and define %r."""
        n = len(ins[0].shape)
        ident, scalar = "id%d" % n, "red%d" % n
        r = self.value(base, out.shape)
        if iters == "parallel":
            maps = [ident] * len(ins) + [scalar, ident]
        else:
            maps = [ident] * len(ins) + [scalar, scalar]
        argn = ["%in", "%in2"][:len(ins)]
        for line in body:
            self.body_names.add(line.split(" = ", 1)[0][1:])
        text = ["linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (
                    ", ".join(self.m(a) for a in maps), ", ".join(['"%s"' % iters] * n)),
                "    ins(%s, %s : %s, i1) outs(%s : %s) {" % (
                    ", ".join(v.ssa for v in ins), cond, ", ".join(v.ty for v in ins),
                    out.ssa, out.ty),
                "^bb0(%s, %%cv: i1, %%out: f32):" % ", ".join("%s: f32" % a for a in argn)]
        text += ["  " + l for l in body] + ["  linalg.yield %r : f32", "} -> " + r.ty]
        return self.op(r, "\n".join(text))

    def select(self, base, cond, a, b):
        """cond ? a : b, elementwise."""
        return self.cond_generic(base, [a, b], cond, ["%r = arith.select %cv, %in, %in2 : f32"],
                                 self.empty(base, a.shape), "parallel")

    def masked(self, base, cond, a):
        """cond ? a : 0."""
        self.body_names.add("mzero")
        return self.cond_generic(base, [a], cond, ["%mzero = arith.constant 0.0 : f32",
                                                   "%r = arith.select %cv, %in, %mzero : f32"],
                                 self.empty(base, a.shape), "parallel")

    def branch(self, base, cond, then, other=None):
        """scf.if cond: the values then() returns, else other()'s (lists
        of V of the same types; no results when then() returns none)."""
        at, pad = len(self.lines), "  " * self.depth
        self.lines.append(None)  # the header, once the results are known

        def region(fn):
            self.depth += 1
            vals = fn() or []
            if vals:
                self.emit("scf.yield %s : %s" % (", ".join(v.ssa for v in vals),
                                                 ", ".join(v.ty for v in vals)))
            self.depth -= 1
            return vals
        vals = region(then)
        if other is not None:
            self.emit("} else {")
            region(other)
        self.emit("}")
        if not vals:
            self.lines[at] = "%sscf.if %s {" % (pad, cond)
            return []
        name = self.fresh(base)
        self.lines[at] = "%s%s%s = scf.if %s -> (%s) {" % (
            pad, name, ":%d" % len(vals) if len(vals) > 1 else "", cond,
            ", ".join(v.ty for v in vals))
        if len(vals) == 1:
            return [V(name, vals[0].shape)]
        return [V("%s#%d" % (name, i), v.shape) for i, v in enumerate(vals)]

    def send(self, base, v, dest):
        """shard.send to the stage `dest` (an index value)."""
        r = self.value(base, v.shape)
        return self.op(r, "shard.send %s on @grid grid_axes = [0] destination = [%s] "
                       ": (%s, index) -> %s" % (v.ssa, dest, v.ty, r.ty))

    def recv(self, base, like, src):
        """shard.recv of a tensor like `like` from the stage `src`."""
        r = self.value(base, like.shape)
        return self.op(r, "shard.recv %s on @grid grid_axes = [0] source = [%s] "
                       ": (%s, index) -> %s" % (like.ssa, src, like.ty, r.ty))

    def shift(self, base, v, offset):
        """shard.shift to the next (offset 1) or previous (-1) stage."""
        r = self.value(base, v.shape)
        return self.op(r, "shard.shift %s on @grid grid_axes = [0] shift_axis = 0 offset = %d "
                       ": %s -> %s" % (v.ssa, offset, v.ty, r.ty))


class Pipeline:
    """The text of one pipelined step (the module docstring)."""

    def __init__(self, a):
        self.a = a
        self.P, self.M, self.L = a.stages, a.microbatches, a.layers_per_stage
        self.S, self.b, self.D, self.H, self.F = a.seq, a.micro_batch_size, a.width, a.heads, a.ffn
        self.twin = twin_opts(a)
        self.g = PipeGen("gpt_%s_p%d_m%d" % (a.pipeline.replace("1f1b", "f1b").replace("-", "_"),
                                             self.P, self.M),
                         self.P)
        self.blk = GptBlock(self.g, "single", self.S, self.b, self.H, self.D // self.H)
        self.N = self.S * self.b
        self.count = self.S * self.M * self.b * self.D

    # -- values read by every iteration -----------------------------------
    def prologue(self):
        g, P = self.g, self.P
        self.args = {}
        for name, shape in func_args(self.twin):
            dim = 0 if name in WEIGHTS else None
            self.args[name] = g.arg(name, local_shape(shape, dim, P))
        g.comment("the stage: this device's coordinate on the stage axis")
        self.s = g.ix("s", "shard.process_linear_index on @grid : index")
        self.first = g.ix("first", "arith.cmpi eq, %s, %s : index" % (self.s, g.const(0, "index")))
        self.last = g.ix("last", "arith.cmpi eq, %s, %s : index"
                         % (self.s, g.const(P - 1, "index")))
        g.comment("the stage's blocks: rows of the stacked weights")
        self.W = [{w: g.slice_at("%s_%d" % (w, l), self.args[w], l) for w in WEIGHTS}
                  for l in range(self.L)]

    def micro(self, base, src, m):
        """Micro-batch m (an index value) of x or t: [S, b, D] -> [S b, D]."""
        g, S, b, D = self.g, self.S, self.b, self.D
        off = g.ix(base + "_off", "arith.muli %s, %s : index" % (m, g.const(b, "index")))
        sl = g.value(base + "_mb", [S, b, D])
        g.op(sl, "tensor.extract_slice %s[0, %s, 0] [%d, %d, %d] [1, 1, 1] : %s to %s"
             % (src.ssa, off, S, b, D, src.ty, sl.ty))
        return g.collapse(base, sl, [self.N, D], "[[0, 1], [2]]")

    def in_range(self, base, v):
        """(0 <= v < M, v clamped to 0 when not) for an index v = expr."""
        g = self.g
        ge, j = v
        lt = g.ix(base + "_lt", "arith.cmpi ult, %s, %s : index" % (j, g.const(self.M, "index")))
        ok = g.ix(base + "_ok", "arith.andi %s, %s : i1" % (ge, lt))
        return ok, g.ix(base + "_c", "arith.select %s, %s, %s : index"
                        % (ok, j, g.const(0, "index")))

    def diff(self, base, a, c):
        """(a >= c, a - c) for index values a and c."""
        g = self.g
        return (g.ix(base + "_ge", "arith.cmpi uge, %s, %s : index" % (a, c)),
                g.ix(base, "arith.subi %s, %s : index" % (a, c)))

    # -- the stage's forward and backward ----------------------------------
    def stage_forward(self, state, m):
        """The stage's blocks on micro-batch m's input (stage 0: x's rows,
        else `state`); returns the output and {saved name: value}."""
        g = self.g
        x_m = self.micro("x_in", self.args["x"], m)
        h = g.select("stage_in", self.first, x_m, state)
        saved = {}
        for l in range(self.L):
            h, sv, _ = self.blk.forward(h, lambda w, l=l: self.W[l][w], "_%d" % l)
            saved.update({"%s_%d" % (k, l): sv[k] for k in SAVED})
        saved["y"] = h
        return h, saved

    def loss_acc(self, lacc, y, t_m, valid):
        """lacc + (valid ? sum((y - t)^2) : 0)."""
        return self.g.cond_generic("lacc_n", [y, t_m], valid, [
            "%le = arith.subf %in, %in2 : f32", "%le2 = arith.mulf %le, %le : f32",
            "%lsum = arith.addf %out, %le2 : f32", "%r = arith.select %cv, %lsum, %out : f32"],
            lacc, "reduction")

    def stage_backward(self, y, t_m, g_in, work, saved, grads):
        """The output gradient (the loss's on the last stage, else g_in),
        zero unless `work`, through the stage's blocks in reverse; adds the
        weight gradients into grads[l][w]; returns the input gradient."""
        g = self.g
        dy = self.dy(y, t_m)
        return self.blocks_backward(g.masked("dout", work, g.select("go", self.last, dy, g_in)),
                                    saved, grads)

    def dy(self, y, t_m):
        """The loss's gradient at the stage's output."""
        return self.g.ew("dy", [y, t_m], [
            "%%ktwo = arith.constant %s : f32" % float_text(2.0 / self.count),
            "%de = arith.subf %in, %in2 : f32", "%r = arith.mulf %de, %ktwo : f32"])

    def blocks_backward(self, d, saved, grads):
        """d through the stage's blocks in reverse; adds the weight
        gradients into grads[l][w]; returns the input gradient."""
        g = self.g
        for l in reversed(range(self.L)):
            sv = {k: saved["%s_%d" % (k, l)] for k in SAVED}

            def grad(w, gw, l=l):
                grads[l][w] = g.add("acc_%s_%d" % (w, l), grads[l][w], gw)
            d = self.blk.backward(d, sv, self.W[l], "_%d" % l, grad)
        return d

    def zero_grads(self):
        return [{w: self.g.filled("dacc_%s_%d" % (w, l), self.W[l][w].shape) for w in WEIGHTS}
                for l in range(self.L)]

    def flat(self, grads):
        return [("d%s_%d" % (w, l), grads[l][w]) for l in range(self.L) for w in WEIGHTS]

    def unflat(self, vals):
        it = iter(vals)
        return [{w: next(it) for w in WEIGHTS} for _ in range(self.L)]

    # -- the schedules -----------------------------------------------------
    def gpipe(self):
        g, P, M = self.g, self.P, self.M
        T = M + P - 1
        act = [self.N, self.D]
        state0 = g.filled("state0", act)
        loss0 = g.filled("loss0", [])
        shapes = {}

        def fwd(i, cur, stack, load):
            state, lacc = cur
            mx = g.ix("mx", "arith.minui %s, %s : index" % (i, g.const(M - 1, "index")))
            y, saved = self.stage_forward(state, mx)
            for k, v in saved.items():
                shapes[k] = v.shape
                stack(k, v)
            # The last stage finishes micro-batch i - (P - 1).
            ok, mt = self.in_range("mt", self.diff("iml", i, g.const(P - 1, "index")))
            valid = g.ix("lvalid", "arith.andi %s, %s : i1" % (self.last, ok))
            lacc_n = self.loss_acc(lacc, y, self.micro("t_f", self.args["t"], mt), valid)
            return [g.shift("next", y, 1), lacc_n]
        # The stacks' shapes: a dry run of one iteration's text, discarded.
        stacks = self.dry_run_shapes(lambda: self.stage_forward(state0, g.const(0, "index"))[1])
        g.comment("forward: iteration i, stage s on micro-batch i - s (a scan)")
        (_, lacc), st = g.scan_for("fwd", T, [("state", state0), ("lacc", loss0)],
                                   g.empty_stacks(T, stacks), fwd)
        loss = self.finish_loss(lacc)
        grads0 = self.zero_grads()

        def bwd(i, cur, stack, load):
            g_in, grads = cur[0], self.unflat(cur[1:])
            ok, mt = self.in_range("mt", self.diff("iml", i, g.const(P - 1, "index")))
            work, _ = self.in_range("ms", self.diff("ims", i, self.s))
            saved = {k: load(k) for k, _ in stacks}
            d = self.stage_backward(saved["y"], self.micro("t_b", self.args["t"], mt), g_in,
                                    work, saved, grads)
            return [g.shift("gnext", d, -1)] + [v for _, v in self.flat(grads)]
        g.comment("backward: iteration i = T-1 .. 0 runs forward iteration i in reverse")
        res, _ = g.scan_for("bwd", T, [("g", g.filled("g0", act))] + self.flat(grads0), [], bwd,
                            reverse=True, reads=st)
        return loss, self.unflat(res[1:])

    def onef1b(self):
        g, P, M = self.g, self.P, self.M
        T = M + 2 * (P - 1)
        K = min(2 * P - 1, M)
        act = [self.N, self.D]
        zact = g.filled("zact", act)
        stacks = self.dry_run_shapes(lambda: self.stage_forward(zact, g.const(0, "index"))[1])
        g.comment("the rings: what the backward reads, K = %d slots, zero-filled" % K)
        rings0 = [("ring_" + k, g.filled("ring_" + k, [K] + list(shape))) for k, shape in stacks]
        names = [k for k, _ in stacks]
        grads0 = self.zero_grads()
        cK = g.const(K, "index")

        def body(k, cur, stack, load):
            state, g_in, lacc = cur[:3]
            rings = dict(zip(names, cur[3:3 + len(names)]))
            grads = self.unflat(cur[3 + len(names):])
            g.comment("forward slot: micro-batch f = k - s")
            fvalid, fc = self.in_range("f", self.diff("fm", k, self.s))
            fslot = g.ix("fslot", "arith.remui %s, %s : index" % (fc, cK))
            y, saved = self.stage_forward(state, fc)
            g.comment("stash in slot f mod K; a masked slot keeps what it holds")
            for n in names:
                old = g.slice_at("old_" + n, rings[n], fslot)
                keep = g.select("keep_" + n, fvalid, saved[n], old)
                rings[n] = g.insert_at("ring_%s_n" % n, keep, rings[n], fslot)
            lvalid = g.ix("lvalid", "arith.andi %s, %s : i1" % (self.last, fvalid))
            lacc_n = self.loss_acc(lacc, y, self.micro("t_f", self.args["t"], fc), lvalid)
            nxt = g.shift("next", y, 1)
            g.comment("backward slot: micro-batch b = k + s - 2(P-1); the last stage's b = f")
            ks = g.ix("ks", "arith.addi %s, %s : index" % (k, self.s))
            bvalid, bc = self.in_range("b", self.diff("bm", ks, g.const(2 * (P - 1), "index")))
            bslot = g.ix("bslot", "arith.remui %s, %s : index" % (bc, cK))
            sv = {n: g.slice_at("r_" + n, rings[n], bslot) for n in names}
            d = self.stage_backward(sv["y"], self.micro("t_b", self.args["t"], bc), g_in, bvalid,
                                    sv, grads)
            gnext = g.shift("gnext", d, -1)
            return ([nxt, gnext, lacc_n] + [rings[n] for n in names] +
                    [v for _, v in self.flat(grads)])
        g.comment("iteration k: a forward slot, then a backward slot")
        carries = [("state", zact), ("g", zact), ("lacc", g.filled("loss0", []))] + rings0 + \
            self.flat(grads0)
        res, _ = g.scan_for("it", T, carries, [], body)
        return self.finish_loss(res[2]), self.unflat(res[3 + len(names):])

    def async_1f1b(self):
        """PyTorch's Schedule1F1B (async_1f1b.py's docstring): stage s runs
        W = min(P-1-s, M) warm-up forwards, M + W iterations, point-to-point
        sends and receives under control flow on the stage, rings of
        min(P-s, M) rows sized by the stage index."""
        g, P, M = self.g, self.P, self.M
        c = lambda v: g.const(v, "index")  # noqa: E731
        act = [self.N, self.D]
        zact = g.filled("zact", act)
        rbuf = g.empty("rbuf", act)
        stacks = self.dry_run_shapes(lambda: self.stage_forward(zact, c(0))[1])
        names = [k for k, _ in stacks]
        prev = g.ix("prev", "arith.subi %s, %s : index" % (self.s, c(1)))
        nxt = g.ix("next", "arith.addi %s, %s : index" % (self.s, c(1)))
        notfirst = g.ix("notfirst", "arith.cmpi ne, %s, %s : index" % (self.s, c(0)))
        g.comment("W = min(P-1-s, M) warm-up forwards; K = min(W + 1, M) rows in flight")
        wu = g.ix("wu", "arith.subi %s, %s : index" % (c(P - 1), self.s))
        W = g.ix("W", "arith.minui %s, %s : index" % (wu, c(M)))
        kw = g.ix("kw", "arith.addi %s, %s : index" % (W, c(1)))
        K = g.ix("K", "arith.minui %s, %s : index" % (kw, c(M)))
        n = g.ix("n", "arith.addi %s, %s : index" % (c(M), W))
        rings0 = []
        for k, shape in stacks:
            e = g.value("ring_%s_x" % k, [None] + list(shape))
            g.op(e, "tensor.empty(%s) : %s" % (K, e.ty))
            z = g.value("ring_" + k, e.shape)
            g.op(z, "linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                 % (g.const(0.0, "f32"), e.ssa, e.ty, z.ty))
            rings0.append(("ring_" + k, z))
        grads0 = self.zero_grads()
        g.comment("micro-batch 0's input, from the previous stage")
        in0 = g.branch("in0", notfirst, lambda: [g.recv("rx0", rbuf, prev)], lambda: [zact])[0]

        def body(k, cur, stack, load):
            xin, lacc = cur[:2]
            rings = cur[2:2 + len(names)]
            grads = self.unflat(cur[2 + len(names):])
            g.comment("1. the forward of micro-batch k")
            fv = g.ix("fv", "arith.cmpi ult, %s, %s : index" % (k, c(M)))

            def forward():
                y, saved = self.stage_forward(xin, k)
                fslot = g.ix("fslot", "arith.remui %s, %s : index" % (k, K))
                new = [g.insert_at("ring_%s_f" % m, saved[m], r, fslot)
                       for m, r in zip(names, rings)]

                def loss():
                    t_k = self.micro("t_k", self.args["t"], k)
                    return [g.generic("lsum", [y, t_k], ["id2", "id2", "red2"],
                                      ["reduction"] * 2, [
                                          "%le = arith.subf %in, %in2 : f32",
                                          "%le2 = arith.mulf %le, %le : f32",
                                          "%r = arith.addf %out, %le2 : f32"], [], init=lacc)]

                def send():
                    g.send("sent", y, nxt)
                    return [lacc]
                return new + g.branch("lacc_f", self.last, loss, send)
            F = g.branch("F", fv, forward, lambda: list(rings) + [lacc])
            g.comment("2. the backward of micro-batch b = k - W")
            bv = g.ix("bv", "arith.cmpi uge, %s, %s : index" % (k, W))

            def backward():
                b = g.ix("bidx", "arith.subi %s, %s : index" % (k, W))
                bslot = g.ix("bslot", "arith.remui %s, %s : index" % (b, K))
                sv = {m: g.slice_at("r_" + m, F[i], bslot) for i, m in enumerate(names)}
                gout = g.branch("gout", self.last,
                                lambda: [self.dy(sv["y"], self.micro("t_b", self.args["t"], b))],
                                lambda: [g.recv("gr", rbuf, nxt)])[0]
                mine = [dict(d) for d in grads]
                d = self.blocks_backward(gout, sv, mine)
                return [v for _, v in self.flat(mine)] + [d]
            Bk = g.branch("Bk", bv, backward, lambda: [v for _, v in self.flat(grads)] + [zact])
            g.comment("3. the input of micro-batch k + 1, received before the gradient goes back")
            k1 = g.ix("k1", "arith.addi %s, %s : index" % (k, c(1)))
            more = g.ix("more", "arith.cmpi ult, %s, %s : index" % (k1, c(M)))
            rv = g.ix("rv", "arith.andi %s, %s : i1" % (more, notfirst))
            xin_n = g.branch("xin_n", rv, lambda: [g.recv("rx", rbuf, prev)], lambda: [xin])[0]
            g.comment("4. the input gradient to the previous stage")
            sv_ = g.ix("sv", "arith.andi %s, %s : i1" % (bv, notfirst))
            g.branch("gsend", sv_, lambda: g.send("gsent", Bk[-1], prev) and None)
            return [xin_n, F[-1]] + F[:-1] + Bk[:-1]
        carries = [("xin", in0), ("lacc", g.filled("loss0", []))] + rings0 + self.flat(grads0)
        res, _ = g.scan_for("it", M, carries, [], body, upper=n)
        return self.finish_loss(res[1]), self.unflat(res[2 + len(names):])

    def dry_run_shapes(self, run):
        """[(name, shape)] of what run() returns, its text discarded."""
        g = self.g
        saved_state = (list(g.lines), set(g.used), list(g.consts), dict(g.const_ssa),
                       set(g.maps), set(g.body_names))
        vals = run()
        g.lines, g.used, g.consts, g.const_ssa, g.maps, g.body_names = saved_state
        return [(k, v.shape) for k, v in vals.items()]

    def finish_loss(self, lacc):
        g = self.g
        loss_l = g.generic("loss_l", [lacc], ["red0", "red0"], [], [
            "%%kinv = arith.constant %s : f32" % float_text(1.0 / self.count),
            "%r = arith.mulf %in, %kinv : f32"], [])
        g.comment("only the last stage's is not zero: the sum gives every stage the loss")
        return g.all_reduce("loss", loss_l)

    def text(self):
        a, g = self.a, self.g
        self.prologue()
        loss, grads = {"gpipe": self.gpipe, "1f1b": self.onef1b,
                       "1f1b-async": self.async_1f1b}[a.pipeline]()
        results = [loss]
        for w in WEIGHTS:
            st = g.empty("d" + w, [self.L] + list(self.W[0][w].shape))
            for l in range(self.L):
                st = g.insert_at("d%s_s%d" % (w, l), grads[l][w], st, l)
            results.append(st)
        self.results = results
        sched = {"gpipe": "GPipe, %d iterations" % (self.M + self.P - 1),
                 "1f1b": "1F1B, %d iterations, rings of %d slots"
                         % (self.M + 2 * (self.P - 1), min(2 * self.P - 1, self.M)),
                 "1f1b-async": "asynchronous 1F1B (send/recv), M + min(P-1-s, M) iterations, "
                               "rings of min(P-s, M) rows"}[a.pipeline]
        header = ["GENERATED by test/Distributed/gen_pipeline_gpt.py; do not edit.",
                  "Regenerate: python3 test/Distributed/gen_pipeline_gpt.py %s" % cmdline(a),
                  "%s: %d stages of %d GPT-like blocks (gen_sharded.py's), %d micro-batches "
                  "of %d sequences of %d x %d." % (sched, self.P, self.L, self.M, self.b,
                                                   self.S, self.D),
                  "Results: the loss, the stage's gradients of %s [%d, ...]."
                  % (" ".join(WEIGHTS), self.L)]
        return g.text(header, results)

    def harness(self):
        return harness_for(self.twin, self.g, self.results,
                           lambda name: 0 if name in WEIGHTS else None, self.P,
                           "gen_pipeline_gpt.py", cmdline(self.a))


def twin_opts(a):
    """gen_sharded's single twin: P L blocks, M b sequences, as a scan."""
    return gen_sharded.Opts("single", scan=True, seq=a.seq, batch=a.microbatches *
                            a.micro_batch_size, width=a.width, heads=a.heads, ffn=a.ffn,
                            layers=a.stages * a.layers_per_stage)


def cmdline(a):
    return ("--pipeline %s --stages %d --microbatches %d --layers-per-stage %d --seq %d "
            "--micro-batch-size %d --width %d --heads %d --ffn %d%s" % (
                a.pipeline, a.stages, a.microbatches, a.layers_per_stage, a.seq,
                a.micro_batch_size, a.width, a.heads, a.ffn, " --single" if a.single else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pipeline", choices=["gpipe", "1f1b", "1f1b-async"], default="gpipe")
    ap.add_argument("--stages", "-P", type=int, default=2, help="P, stages (ranks)")
    ap.add_argument("--microbatches", "-M", type=int, default=4, help="M, micro-batches")
    ap.add_argument("--layers-per-stage", "-L", type=int, default=1, help="L, blocks per stage")
    ap.add_argument("--seq", type=int, default=8, help="S, the sequence length")
    ap.add_argument("--micro-batch-size", type=int, default=2, help="b, sequences per micro-batch")
    ap.add_argument("--width", type=int, default=16, help="D, the model width")
    ap.add_argument("--heads", type=int, default=2, help="H, attention heads")
    ap.add_argument("--ffn", type=int, default=32, help="F, the MLP width")
    ap.add_argument("--single", action="store_true", help="the single twin instead")
    ap.add_argument("--harness", action="store_true",
                    help="without -o: write the harness instead of the model")
    ap.add_argument("-o", "--output", help="MODEL.mlir (its harness: MODEL.harness.mlir)")
    a = ap.parse_args()
    if min(a.stages, a.microbatches, a.layers_per_stage, a.seq, a.micro_batch_size, a.width,
           a.heads, a.ffn) < 1 or a.stages < 2:
        sys.exit("gen_pipeline_gpt: sizes must be positive, --stages at least 2")
    if a.width % a.heads:
        sys.exit("gen_pipeline_gpt: --width must divide by --heads")
    if a.single:
        o = twin_opts(a)
        model, harness = gen_sharded.model_text(o), gen_sharded.harness_text(o)
    else:
        p = Pipeline(a)
        model = p.text()
        harness = p.harness()
    if a.output:
        stem = a.output[:-5] if a.output.endswith(".mlir") else a.output
        write_output(a.output, model)
        write_output(stem + ".harness.mlir", harness)
    else:
        sys.stdout.write(harness if a.harness else model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
