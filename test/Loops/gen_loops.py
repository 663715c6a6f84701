#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates loop-form training steps, their unrolled twins and harnesses.

Loop-form steps are written as scan-based frontends emit them (JAX lax.scan,
StableHLO while lowered to scf), in linalg on tensors; each has an unrolled
straight-line twin and a harness @main.

Loop form (`--form loop`, the default) of a scan model:

  %stack0 = tensor.empty() : tensor<TxSxf32>            (one per stacked value)
  %fwd:N = scf.for %i = %c0 to %cT step %c1 iter_args(carries..., stacks...) {
    %st1 = tensor.insert_slice %v into %st[%i, 0, ...] [1, S...] [1, ...]
    ... the body (linalg on tensors, each op with its own empty/fill destination) ...
    scf.yield carries', stacks'
  }
  loss (a linalg.generic reduction into a filled tensor<f32>)
  %bwd:M = scf.for %j = %c0 to %cT step %c1 iter_args(cotangent, gradients...) {
    %i = arith.subi %cTm1, %j : index
    %v_i = tensor.extract_slice %fwd#k[%i, 0, ...] [1, S...] [1, ...]
    ... recompute, backward of the body, gw' = gw + contribution ...
    scf.yield ...
  }
  return %loss, gradients..., d(loss)/d(initial carry)

The forward loop stacks only values computed in its body from its carries
(the carry itself or intermediates), at index %i; it may read per-iteration
slices of loop-invariant stacked arguments (%ws[%i, ...]).  The backward loop
reads every stack at T-1-j only.  Weight gradients are accumulated through
the backward loop's iter_args with an explicit add (not through `outs`).
The IR does not grow with T (only the digits of T change).

`--form unrolled` writes the same program straight-line: T copies of the
body, the backward reading the forward values directly (no stacks), the same
ops in the same order, so the outputs are bit-identical to the loop form.

`microbatch` is a loop whose body is a whole forward + backward (gradient
accumulation over micro-batches); it stacks nothing and is not a scan.

Usage:
  gen_loops.py --model rnn [--steps T --batch B --width W] [--form loop|unrolled]
               [--recompute-gates] [--layers L] [--harness [--bits]] [-o FILE]
    --harness writes the @main (argument values, call, printMemrefF32 of the
    loss and gradients); --bits prints their f32 bit patterns instead
    (printMemrefI32), to compare two forms exactly.
  gen_loops.py --write     rewrite the checked-in Inputs/
  gen_loops.py --check     fail if Inputs/ is stale
Python 3 standard library only; the ops' text is test/Support/mlir_text.py's,
argument values and the harness are the importer's
(python/remat_import_torch/argfill.py), both imported by path.
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "Inputs")
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
import mlir_text  # noqa: E402
from mlir_text import FILL_BODY_NAMES  # noqa: E402
from remat_import_torch.argfill import Init, arg_seed, main_lines  # noqa: E402
from remat_import_torch.mlir import V, f32, float_text  # noqa: E402,F401 (f32: check_loops)


# Indexing maps: mlir_text's and the scalar one (aliases at the top of every file).
MAPS = dict(mlir_text.MAPS, scalar="affine_map<() -> ()>")


class Gen(mlir_text.FuncText):
    """Text of one func.func whose ops may sit in scf.for or scf.while
    bodies, or be repeated in unrolled copies (`form`)."""

    MAPS = MAPS

    def __init__(self, name, form):
        assert form in ("loop", "unrolled", "while", "dynamic")
        super().__init__(name)
        self.form = form
        self.horizon = None     # %n: index, the while form's run-time steps
        self.trip = None        # SSA of the forward while loop's trip count
        self.inits = []

    def const_name(self, value, ty):
        if ty == "index":
            return {0: "c0", 1: "c1"}.get(value, "cT" if value == self.T else "cTm1"
                                          if value == self.T - 1 else "c%d" % value)
        return {0.0: "fill_zero", 1.0: "fill_one"}.get(value, "fill_cst")

    def arg(self, name, shape, scale):
        v = V(self.fresh_top(name), shape)
        self.args.append(v)
        self.inits.append(Init("uniform", seed=arg_seed(len(self.args) - 1), scale=scale))
        return v

    def params(self):
        return super().params() + (["%s: index" % self.horizon] if self.horizon else [])

    def reduce(self, base, ins, body):
        """Sum over every element into a tensor<f32>; `body` defines %v from
        %in, %in2 ... (empty: %v is %in); the result is %out + %v."""
        rank = len(ins[0].shape)
        body = body + ["%r = arith.addf %out, %v : f32"] if body else [
            "%r = arith.addf %out, %in : f32"]
        return self.generic(base, ins, ["id%d" % rank] * len(ins) + ["red%d" % rank],
                            ["reduction"] * rank, body, [],
                            init=self.filled(base, []))

    # -- loops --------------------------------------------------------------
    def loop(self, name, T, carries, body, reverse=False, stacks=(), reads=None):
        """A loop of T iterations over `carries` [(base, V)].

        body(idx, cur, stack, load) -> new carries, where idx is the
        iteration's index (SSA name or int: i for a forward loop, T-1-j
        for a reverse one), cur the current carries, stack(base, v) stores v
        into the stack `base` at idx (forward loops; `stacks` lists
        (base, shape) of every stack), load(base) the value `base` that
        iteration idx of the forward loop stored (reverse loops; `reads` is
        what the forward loop returned).

        Loop and dynamic forms: mlir_text's scan_for; while: the forward
        loop is while_loop's; unrolled: T copies.  Returns (new carries, stacks) where stacks maps base -> stacked
        tensor (loop form) or the list of per-iteration values (unrolled)."""
        if self.form == "unrolled":
            cur = [v for _, v in carries]
            saved = {b: [None] * T for b, _ in stacks}
            for t in range(T):
                k = T - 1 - t if reverse else t
                self.suffix = "_%d" % k
                self.comment("%s: iteration %d" % (name, k))

                def stack(base, v, k=k):
                    saved[base][k] = v

                def load(base, k=k):
                    return reads[base][k]
                cur = body(k, cur, stack, load)
                self.suffix = ""
            return cur, saved
        _, c1, cT = self.bounds(T)
        if self.form == "while" and not reverse:
            return self.while_loop(name, T, carries, body, stacks)
        if self.form == "dynamic" and self.trip is None:
            # Both loops run to min(%n, T), a bound known at run time.
            self.horizon = self.fresh_top("n")
            self.trip = self.fresh("trip")
            self.emit("%s = arith.minsi %s, %s : index" % (self.trip, self.horizon, cT))
            self.trip_m1 = self.fresh("trip_m1")
            self.emit("%s = arith.subi %s, %s : index" % (self.trip_m1, self.trip, c1))
        run_time = self.form in ("while", "dynamic")
        return self.scan_for(name, T, carries, self.empty_stacks(T, stacks), body, reverse,
                             reads, upper=self.trip if run_time else None,
                             last=self.trip_m1 if run_time else None)

    def while_loop(self, name, T, carries, body, stacks):
        """The forward loop as an scf.while of at most T iterations that runs
        while i < %n (a run-time argument): the stacks keep T rows, the
        counter is an iteration argument, the trip count is its result."""
        c0, c1, cT = self.bounds(T)
        if self.horizon is None:
            self.horizon = self.fresh_top("n")
        st0 = [e for _, e in self.empty_stacks(T, stacks)]
        res = self.fresh(name)
        tensors = [v for _, v in carries] + st0
        types = ", ".join(["index"] + [v.ty for v in tensors])
        before = [self.fresh("i_w")] + [self.fresh(b + "_w") for b, _ in carries] + [
            self.fresh("st_" + b + "_w") for b, _ in stacks]
        self.emit("%s:%d = scf.while (%s) : (%s) -> (%s) {" % (
            res, len(tensors) + 1, ", ".join("%s = %s" % (a, v) for a, v in zip(
                before, [c0] + [v.ssa for v in tensors])), types, types))
        self.depth += 1
        a, b, more = self.fresh("below_n"), self.fresh("below_T"), self.fresh("more")
        self.emit("%s = arith.cmpi slt, %s, %s : index" % (a, before[0], self.horizon))
        self.emit("%s = arith.cmpi slt, %s, %s : index" % (b, before[0], cT))
        self.emit("%s = arith.andi %s, %s : i1" % (more, a, b))
        self.emit("scf.condition(%s) %s : %s" % (more, ", ".join(before), types))
        self.depth -= 1
        ivar = self.fresh("i")
        blk = [(self.value(bb, v.shape), v) for bb, v in carries]
        blk += [(self.value("st_" + bb, sv.shape), sv) for (bb, _), sv in zip(stacks, st0)]
        self.emit("} do {")
        self.emit("^bb0(%s):" % ", ".join(["%s: index" % ivar] + [
            "%s: %s" % (x.ssa, x.ty) for x, _ in blk]))
        self.depth += 1
        cur_st = {bb: x for (bb, _), (x, _) in zip(stacks, blk[len(carries):])}

        def stack(base, v):
            cur_st[base] = self.insert_at("st_" + base + "_next", v, cur_st[base], ivar)
        new = body(ivar, [x for x, _ in blk[:len(carries)]], stack, None)
        inext = self.fresh("i_next")
        self.emit("%s = arith.addi %s, %s : index" % (inext, ivar, c1))
        outs = [inext] + [v.ssa for v in new] + [cur_st[bb].ssa for bb, _ in stacks]
        self.emit("scf.yield %s : %s" % (", ".join(outs), types))
        self.depth -= 1
        self.emit("}")
        self.trip = "%s#0" % res
        self.trip_m1 = self.fresh("trip_m1")
        self.emit("%s = arith.subi %s, %s : index" % (self.trip_m1, self.trip, c1))
        results = [V("%s#%d" % (res, k + 1), x.shape) for k, (x, _) in enumerate(blk)]
        return results[:len(carries)], {bb: r for (bb, _), r in zip(stacks, results[len(carries):])}


# Body lines of the elementwise ops.
TANH = ["%r = math.tanh %in : f32"]
SIGMOID = ["%one = arith.constant 1.0 : f32", "%neg = arith.negf %in : f32",
           "%ex = math.exp %neg : f32", "%den = arith.addf %one, %ex : f32",
           "%r = arith.divf %one, %den : f32"]
RELU = ["%zero = arith.constant 0.0 : f32", "%r = arith.maximumf %in, %zero : f32"]
SQUARE = ["%v = arith.mulf %in, %in : f32"]


def tanh_grad():
    """d * (1 - y^2): %in = d, %in2 = y."""
    return ["%one = arith.constant 1.0 : f32", "%y2 = arith.mulf %in2, %in2 : f32",
            "%s = arith.subf %one, %y2 : f32", "%r = arith.mulf %in, %s : f32"]


# --------------------------------------------------------------------------
# Models.  Each takes (g, opts) and returns (header lines, results).
# --------------------------------------------------------------------------
def rnn(g, o):
    """tanh RNN: h_{t+1} = tanh(h_t W), loss = sum(h_T); returns the loss,
    dW and dh_0.  The forward loop stacks h_t; the backward recomputes
    tanh(h_t W) from it."""
    T, B, W = o.steps, o.batch, o.width
    h0 = g.arg("h0", [B, W], 1.0)
    w = g.arg("w", [W, W], math.sqrt(3.0 / W))

    def fwd(i, cur, stack, load):
        h, = cur
        stack("h", h)
        p = g.matmul("p", h, w)
        return [g.ew("y", [p], TANH)]
    g.comment("forward: h_{t+1} = tanh(h_t w), h_t stacked")
    (hT,), st = g.loop("fwd", T, [("h", h0)], fwd, stacks=[("h", [B, W])])
    loss = g.reduce("loss", [hT], [])
    g.comment("backward: dloss/dh_T = 1")
    dT = g.filled("dT", [B, W], 1.0)
    gw0 = g.filled("gw0", [W, W])

    def bwd(i, cur, stack, load):
        d, gw = cur
        h = load("h")
        p = g.matmul("p_r", h, w)
        y = g.ew("y_r", [p], TANH)
        da = g.ew("da", [d, y], tanh_grad())
        if getattr(o, "accumulate", "add") == "outs":
            # As AD tools write it: the contribution accumulated into the
            # running gradient itself (linalg.generic ... outs(%gw)).
            gwn = g.generic("gw_next", [h, da], ["tn_a", "tn_b", "tn_o"],
                            ["parallel", "parallel", "reduction"], g.MAC, [W, W], init=gw)
        else:
            gwc = g.matmul_tn("gwc", h, da)
            gwn = g.add("gw_next", gw, gwc)
        dn = g.matmul_nt("d_next", da, w)
        return [dn, gwn]
    (dh0, gw), _ = g.loop("bwd", T, [("d", dT), ("gw", gw0)], bwd, reverse=True, reads=st)
    return ["tanh RNN, T=%d steps, batch %d, width %d: h_{t+1} = tanh(h_t w), loss = sum(h_T)."
            % (T, B, W),
            "Results: loss, dloss/dw, dloss/dh0."], [loss, gw, dh0]


def gru(g, o):
    """GRU-like cell: z = sigmoid(h Wz), c = tanh(h Wh), h' = (1-z) h + z c;
    loss = sum(h_T); returns the loss, dWz, dWh, dh_0.  Stacks h, and z and c
    unless --recompute-gates (then the backward recomputes them from h)."""
    T, B, W = o.steps, o.batch, o.width
    h0 = g.arg("h0", [B, W], 1.0)
    wz = g.arg("wz", [W, W], math.sqrt(3.0 / W))
    wh = g.arg("wh", [W, W], math.sqrt(3.0 / W))
    gates = not o.recompute_gates

    def cell(h):
        z = g.ew("z", [g.matmul("pz", h, wz)], SIGMOID)
        c = g.ew("c", [g.matmul("pc", h, wh)], TANH)
        return z, c

    def fwd(i, cur, stack, load):
        h, = cur
        stack("h", h)
        z, c = cell(h)
        if gates:
            stack("z", z)
            stack("c", c)
        return [g.ew("hn", [h, z, c], [
            "%one = arith.constant 1.0 : f32", "%k = arith.subf %one, %in2 : f32",
            "%a = arith.mulf %k, %in : f32", "%b = arith.mulf %in2, %in3 : f32",
            "%r = arith.addf %a, %b : f32"])]
    stacks = [("h", [B, W])] + ([("z", [B, W]), ("c", [B, W])] if gates else [])
    g.comment("forward: z = sigmoid(h wz), c = tanh(h wh), h' = (1 - z) h + z c")
    (hT,), st = g.loop("fwd", T, [("h", h0)], fwd, stacks=stacks)
    loss = g.reduce("loss", [hT], [])
    g.comment("backward: dloss/dh_T = 1")
    dT = g.filled("dT", [B, W], 1.0)
    gz0 = g.filled("gwz0", [W, W])
    gh0 = g.filled("gwh0", [W, W])

    def bwd(i, cur, stack, load):
        d, gz, gh = cur
        h = load("h")
        if gates:
            z, c = load("z"), load("c")
        else:
            z, c = cell(h)
        # dpz = d (c - h) z (1 - z); dpc = d z (1 - c^2)
        dpz = g.ew("dpz", [d, z, c, h], [
            "%one = arith.constant 1.0 : f32", "%ch = arith.subf %in3, %in4 : f32",
            "%a = arith.mulf %in, %ch : f32", "%k = arith.subf %one, %in2 : f32",
            "%zk = arith.mulf %in2, %k : f32", "%r = arith.mulf %a, %zk : f32"])
        dpc = g.ew("dpc", [d, z, c], [
            "%one = arith.constant 1.0 : f32", "%c2 = arith.mulf %in3, %in3 : f32",
            "%k = arith.subf %one, %c2 : f32", "%a = arith.mulf %in, %in2 : f32",
            "%r = arith.mulf %a, %k : f32"])
        gzn = g.add("gwz_next", gz, g.matmul_tn("gwzc", h, dpz))
        ghn = g.add("gwh_next", gh, g.matmul_tn("gwhc", h, dpc))
        dz = g.matmul_nt("dhz", dpz, wz)
        dc = g.matmul_nt("dhc", dpc, wh)
        dn = g.ew("d_next", [d, z, dz, dc], [
            "%one = arith.constant 1.0 : f32", "%k = arith.subf %one, %in2 : f32",
            "%a = arith.mulf %in, %k : f32", "%b = arith.addf %a, %in3 : f32",
            "%r = arith.addf %b, %in4 : f32"])
        return [dn, gzn, ghn]
    (dh0, gz, gh), _ = g.loop("bwd", T, [("d", dT), ("gwz", gz0), ("gwh", gh0)], bwd,
                              reverse=True, reads=st)
    return ["GRU-like cell, T=%d steps, batch %d, width %d: z = sigmoid(h wz), c = tanh(h wh),"
            % (T, B, W),
            "h' = (1 - z) h + z c, loss = sum(h_T); stacks %s."
            % ("h, z and c" if gates else "h (the backward recomputes z and c)"),
            "Results: loss, dloss/dwz, dloss/dwh, dloss/dh0."], [loss, gz, gh, dh0]


def scan_layers(g, o):
    """Scan over L residual blocks with stacked parameters ws[L, W, W]:
    h' = h + relu(h ws[i]); loss = sum(h_L^2); returns the loss, dws (written
    per iteration into a stacked gradient) and dh_0."""
    L, B, W = o.steps, o.batch, o.width
    h0 = g.arg("h0", [B, W], 1.0)
    ws = g.arg("ws", [L, W, W], math.sqrt(1.0 / W))

    def fwd(i, cur, stack, load):
        h, = cur
        stack("h", h)
        wi = g.slice_at("w_i", ws, i)
        a = g.ew("a", [g.matmul("p", h, wi)], RELU)
        return [g.add("hn", h, a)]
    g.comment("forward: h' = h + relu(h ws[i]), h stacked")
    (hL,), st = g.loop("fwd", L, [("h", h0)], fwd, stacks=[("h", [B, W])])
    loss = g.reduce("loss", [hL], SQUARE)
    g.comment("backward: dloss/dh_L = 2 h_L")
    dL = g.ew("dL", [hL], ["%two = arith.constant 2.0 : f32", "%r = arith.mulf %in, %two : f32"])
    gws0 = g.filled("gws0", [L, W, W])

    def bwd(i, cur, stack, load):
        d, gws = cur
        h = load("h")
        wi = g.slice_at("w_r", ws, i)
        p = g.matmul("p_r", h, wi)
        dp = g.ew("dp", [d, p], [
            "%zero = arith.constant 0.0 : f32", "%pos = arith.cmpf ogt, %in2, %zero : f32",
            "%r = arith.select %pos, %in, %zero : f32"])
        gwi = g.matmul_tn("gw_i", h, dp)
        gwsn = g.insert_at("gws_next", gwi, gws, i)
        dn = g.add("d_next", d, g.matmul_nt("dh", dp, wi))
        return [dn, gwsn]
    (dh0, gws), _ = g.loop("bwd", L, [("d", dL), ("gws", gws0)], bwd, reverse=True, reads=st)
    return ["Scan over L=%d residual blocks, batch %d, width %d, stacked parameters ws[L]:"
            % (L, B, W),
            "h' = h + relu(h ws[i]), loss = sum(h_L^2).",
            "Results: loss, dloss/dws (stacked), dloss/dh0."], [loss, gws, dh0]


PDE_DT = 0.1


def pde(g, o):
    """Explicit time stepping of a 1-D heat/reaction equation on N points
    (zero Dirichlet boundary, dx = 1, dt = 0.1):
    u' = u + dt (u[x-1] - 2 u + u[x+1] - k u^3); loss = sum(u_T^2); returns
    the loss, dk (a per-point reaction coefficient) and du_0."""
    T, N = o.steps, o.width
    u0 = g.arg("u_init", [N], 1.0)
    kk = g.arg("k", [N], 1.0)
    dt = float_text(PDE_DT)
    mdt = float_text(-PDE_DT)

    def shifts(base, u):
        """(u[x-1], u[x+1]) with zeros outside, via a padded copy."""
        z = g.filled(base + "_pad", [N + 2])
        p = g.value(base + "_pad", [N + 2])
        g.op(p, "tensor.insert_slice %s into %s[1] [%d] [1] : %s into %s"
             % (u.ssa, z.ssa, N, u.ty, p.ty))
        left, right = g.value(base + "_l", [N]), g.value(base + "_r", [N])
        g.op(left, "tensor.extract_slice %s[0] [%d] [1] : %s to %s" % (p.ssa, N, p.ty, left.ty))
        g.op(right, "tensor.extract_slice %s[2] [%d] [1] : %s to %s" % (p.ssa, N, p.ty, right.ty))
        return left, right

    def fwd(i, cur, stack, load):
        u, = cur
        stack("u", u)
        left, right = shifts("u", u)
        return [g.ew("un", [u, left, right, kk], [
            "%%dt = arith.constant %s : f32" % dt, "%two = arith.constant 2.0 : f32",
            "%s = arith.addf %in2, %in3 : f32", "%u2 = arith.mulf %in, %two : f32",
            "%lap = arith.subf %s, %u2 : f32", "%sq = arith.mulf %in, %in : f32",
            "%cu = arith.mulf %sq, %in : f32", "%ku = arith.mulf %in4, %cu : f32",
            "%f = arith.subf %lap, %ku : f32", "%df = arith.mulf %dt, %f : f32",
            "%r = arith.addf %in, %df : f32"])]
    g.comment("forward: u' = u + dt (u[x-1] - 2 u + u[x+1] - k u^3), u stacked")
    (uT,), st = g.loop("fwd", T, [("u", u0)], fwd, stacks=[("u", [N])])
    loss = g.reduce("loss", [uT], SQUARE)
    g.comment("backward: dloss/du_T = 2 u_T")
    dT = g.ew("dT", [uT], ["%two = arith.constant 2.0 : f32", "%r = arith.mulf %in, %two : f32"])
    gk0 = g.filled("gk0", [N])

    def bwd(i, cur, stack, load):
        d, gk = cur
        u = load("u")
        # dk += d (-dt u^3); du = d (1 - 2 dt - 3 dt k u^2) + dt (d[x-1] + d[x+1])
        gkc = g.ew("gkc", [d, u], [
            "%%mdt = arith.constant %s : f32" % mdt, "%sq = arith.mulf %in2, %in2 : f32",
            "%cu = arith.mulf %sq, %in2 : f32", "%a = arith.mulf %in, %cu : f32",
            "%r = arith.mulf %a, %mdt : f32"])
        gkn = g.add("gk_next", gk, gkc)
        left, right = shifts("d", d)
        dn = g.ew("d_next", [d, u, kk, left, right], [
            "%%dt = arith.constant %s : f32" % dt, "%one = arith.constant 1.0 : f32",
            "%two = arith.constant 2.0 : f32", "%three = arith.constant 3.0 : f32",
            "%sq = arith.mulf %in2, %in2 : f32", "%ksq = arith.mulf %in3, %sq : f32",
            "%k3 = arith.mulf %ksq, %three : f32", "%t2 = arith.addf %two, %k3 : f32",
            "%t3 = arith.mulf %dt, %t2 : f32", "%f = arith.subf %one, %t3 : f32",
            "%a = arith.mulf %in, %f : f32", "%s = arith.addf %in4, %in5 : f32",
            "%b = arith.mulf %dt, %s : f32", "%r = arith.addf %a, %b : f32"])
        return [dn, gkn]
    (du0, gk), _ = g.loop("bwd", T, [("d", dT), ("gk", gk0)], bwd, reverse=True, reads=st)
    return ["1-D heat/reaction equation, T=%d explicit steps on N=%d points (zero boundary,"
            % (T, N),
            "dt = %s): u' = u + dt (u[x-1] - 2 u + u[x+1] - k u^3), loss = sum(u_T^2)." % dt,
            "Results: loss, dloss/dk, dloss/du0."], [loss, gk, du0]


def microbatch(g, o):
    """Gradient accumulation over M micro-batches of an L-layer MLP
    y = relu(...relu(x W1)...) WL, loss = sum_k sum((y_k - t_k)^2) / (M B);
    the loop body is a whole forward + backward (no stacks: not a scan);
    returns the loss and dW1 ... dWL."""
    M, B, W, L = o.steps, o.batch, o.width, o.layers
    D, K = W, max(1, W // 2)
    dims = [D] + [W] * (L - 1) + [K]  # layer l maps dims[l-1] -> dims[l]
    x = g.arg("x", [M, B, D], 1.0)
    t = g.arg("t", [M, B, K], 1.0)
    ws = [g.arg("w%d" % l, [dims[l - 1], dims[l]],
                math.sqrt((6.0 if l < L else 3.0) / dims[l - 1])) for l in range(1, L + 1)]
    s = float_text(1.0 / (M * B))
    s2 = float_text(2.0 / (M * B))

    def step(i, cur, stack, load):
        ls, gs = cur[0], cur[1:]
        xk = g.slice_at("x_k", x, i)
        tk = g.slice_at("t_k", t, i)
        pres, acts = [], [xk]  # acts[l-1] is layer l's input
        for l in range(1, L):
            pres.append(g.matmul("pre", acts[-1], ws[l - 1]))
            acts.append(g.ew("act", [pres[-1]], RELU))
        y = g.matmul("y", acts[-1], ws[-1])
        lk = g.reduce("loss_k", [y, tk], [
            "%%sc = arith.constant %s : f32" % s, "%e = arith.subf %in, %in2 : f32",
            "%e2 = arith.mulf %e, %e : f32", "%v = arith.mulf %e2, %sc : f32"])
        d = g.ew("dy", [y, tk], ["%%s2 = arith.constant %s : f32" % s2,
                                 "%e = arith.subf %in, %in2 : f32",
                                 "%r = arith.mulf %e, %s2 : f32"])
        nexts = [None] * L
        for l in range(L, 0, -1):
            nexts[l - 1] = g.add("gw%d_next" % l, gs[l - 1],
                                 g.matmul_tn("gw%dc" % l, acts[l - 1], d))
            if l > 1:
                dr = g.matmul_nt("dr", d, ws[l - 1])
                d = g.ew("da", [dr, pres[l - 2]], [
                    "%zero = arith.constant 0.0 : f32",
                    "%pos = arith.cmpf ogt, %in2, %zero : f32",
                    "%r = arith.select %pos, %in, %zero : f32"])
        lsn = g.generic("loss_next", [ls, lk], ["scalar"] * 3, [],
                        ["%r = arith.addf %in, %in2 : f32"], [])
        return [lsn] + nexts
    carries = [("loss", g.filled("loss0", []))]
    carries += [("gw%d" % l, g.filled("gw%d0" % l, [dims[l - 1], dims[l]]))
                for l in range(1, L + 1)]
    g.comment("for each micro-batch k: forward, loss, backward, accumulate")
    results, _ = g.loop("acc", M, carries, step)
    expr = "x w1"
    for l in range(2, L + 1):
        expr = "relu(%s) w%d" % (expr, l)
    return ["Micro-batch gradient accumulation: M=%d micro-batches of %d rows, %d-layer MLP"
            % (M, B, L),
            "y = %s (%s), loss = sum_k sum((y_k - t_k)^2) / (M B)."
            % (expr, " -> ".join(str(n) for n in dims)),
            "The loop body is a whole forward + backward; no stacks (not a scan).",
            "Results: loss, %s." % ", ".join("dloss/dw%d" % l for l in range(1, L + 1))], results


MODELS = {"rnn": rnn, "gru": gru, "scan_layers": scan_layers, "pde": pde,
          "microbatch": microbatch}
DEFAULTS = {"rnn": (64, 32, 64), "gru": (16, 8, 16), "scan_layers": (8, 8, 16),
            "pde": (16, 1, 32), "microbatch": (4, 8, 16)}


def build(model, o):
    g = Gen(model, o.form)
    g.T = o.steps
    header, results = MODELS[model](g, o)
    return g, header, results


def model_text(model, o):
    g, header, results = build(model, o)
    hdr = ["GENERATED by test/Loops/gen_loops.py; do not edit.",
           "Regenerate: python3 test/Loops/gen_loops.py %s" % cmdline(model, o), ""]
    hdr += header
    forms = {"loop": "loop (forward scf.for stacking per-iteration values, backward "
                     "scf.for reading them in reverse)",
             "while": "while (forward scf.while of at most T steps, run while i < %n, "
                      "stacking per-iteration values; backward scf.for over its trip count)",
             "dynamic": "dynamic (forward and backward scf.for to min(%n, T), a bound "
                        "known at run time, the stacks of T rows)",
             "unrolled": "unrolled (straight-line twin of the loop form)"}
    hdr.append("Form: %s." % forms[o.form]
               if model != "microbatch" else
               "Form: %s." % ("loop (one scf.for over the micro-batches)" if o.form == "loop"
                              else "unrolled (straight-line twin of the loop form)"))
    hdr.append("Arguments: " + ", ".join("%s %s" % (a.ssa, a.ty) for a in g.args)
               + (", %s index (steps to run, at most T)" % g.horizon if g.horizon else ""))
    return g.text(hdr, results)


def bits_lines(k, ty, shape):
    """Prints result k as the int32 bit patterns of its f32 elements."""
    r, rank = "%%res%d" % k, len(shape)
    ity = ty.replace("f32>", "i32>")
    d = ", ".join("d%d" % i for i in range(rank))
    return ["  %s_b_e = tensor.empty() : %s" % (r, ity),
            "  %s_b = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, "
            "affine_map<(%s) -> (%s)>], iterator_types = [%s]}" % (
                r, d, d, d, d, ", ".join(['"parallel"'] * rank)),
            "      ins(%s : %s) outs(%s_b_e : %s) {" % (r, ty, r, ity),
            "  ^bb0(%in: f32, %out: i32):",
            "    %bits = arith.bitcast %in : f32 to i32",
            "    linalg.yield %bits : i32",
            "  } -> " + ity,
            "  %s_u = tensor.cast %s_b : %s to tensor<*xi32>" % (r, r, ity),
            "  func.call @printMemrefI32(%s_u) : (tensor<*xi32>) -> ()" % r]


def bits_main(main, results):
    """argfill's @main `main` printing the bit patterns of `results`."""
    out = ["func.func private @printMemrefI32(tensor<*xi32>)"]
    k = 0
    for line in main[1:]:
        if "printMemrefF32" in line:
            out += bits_lines(k, results[k].ty, results[k].shape)
            k += 1
        elif "_u = tensor.cast" not in line:
            out.append(line)
    return out


def harness_text(model, o, bits=False):
    g, _, results = build(model, o)
    clash = {a.ssa[1:] for a in g.args} & FILL_BODY_NAMES
    assert not clash, "arguments shadow the harness's body names: %s" % sorted(clash)
    lines = ["// GENERATED by test/Loops/gen_loops.py; do not edit.",
             "// Harness of @%s (%s): concatenate with the model and run (run_loop.sh)."
             % (model, cmdline(model, o, form=False)),
             "// Prints the loss, then every gradient (the model's result order)%s."
             % (", as the int32 bit patterns of the f32 values" if bits else ""),
             "// Argument values: u(i) = hash(i, seed) in [-1, 1) of the row-major",
             "// linear index i (integer hash, exact), times a scale (see argfill.py)."]
    main = main_lines(model, g.args, g.inits, [r.ty for r in results])
    if g.horizon:  # The run-time number of steps, after the tensors.
        steps = o.run_steps if o.run_steps is not None else o.steps
        k = next(i for i, line in enumerate(main) if "func.call @%s(" % model in line)
        main[k] = main[k].replace(")", ", %n_run)", 1)
        main[k + 1] = main[k + 1].replace(") ->", ", index) ->", 1)
        main.insert(k, "  %%n_run = arith.constant %d : index" % steps)
    if bits:
        main = bits_main(main, results)
    lines += main
    return "\n".join(lines) + "\n"


def cmdline(model, o, form=True):
    text = "--model %s --steps %d --batch %d --width %d" % (model, o.steps, o.batch, o.width)
    if model == "gru" and o.recompute_gates:
        text += " --recompute-gates"
    if model == "microbatch" and o.layers != 2:
        text += " --layers %d" % o.layers
    if (form or o.form in ("while", "dynamic")) and o.form != "loop":
        text += " --form " + o.form
    if not form and o.form in ("while", "dynamic") and o.run_steps is not None:
        text += " --run-steps %d" % o.run_steps
    return text


class Opts:
    def __init__(self, model, form="loop", steps=None, batch=None, width=None,
                 recompute_gates=False, layers=2, run_steps=None):
        d = DEFAULTS[model]
        self.run_steps = run_steps
        self.form = form
        self.steps = steps if steps is not None else d[0]
        self.batch = batch if batch is not None else d[1]
        self.width = width if width is not None else d[2]
        self.recompute_gates = recompute_gates
        self.layers = layers


# The checked-in files: (file stem, model, options).  Harnesses do not depend
# on the form.
CHECKED_IN = [
    ("rnn", "rnn", {}),
    ("gru", "gru", {}),
    ("gru_recompute", "gru", {"recompute_gates": True}),
    ("scan_layers", "scan_layers", {}),
    ("pde", "pde", {}),
    ("microbatch", "microbatch", {}),
    ("microbatch_deep", "microbatch", {"layers": 6, "batch": 64, "width": 32}),
]


# The while form (the forward an scf.while of at most T steps, run for %n
# steps): the model and its harness (at n = T).
CHECKED_IN_WHILE = [
    ("rnn_while", "rnn", {}),
    ("gru_while", "gru", {}),
    ("pde_while", "pde", {}),
]
# The dynamic form (both loops scf.for to min(%n, T)).
CHECKED_IN_DYNAMIC = [("rnn_dynamic", "rnn", {})]


def outputs():
    for form, rows in (("while", CHECKED_IN_WHILE), ("dynamic", CHECKED_IN_DYNAMIC)):
        for stem, model, kw in rows:
            yield (os.path.join(INPUTS, stem + ".mlir"),
                   model_text(model, Opts(model, form=form, **kw)))
            yield (os.path.join(INPUTS, stem + ".harness.mlir"),
                   harness_text(model, Opts(model, form=form, **kw)))
    for stem, model, kw in CHECKED_IN:
        for form, suffix in (("loop", ""), ("unrolled", ".unrolled")):
            yield (os.path.join(INPUTS, stem + suffix + ".mlir"),
                   model_text(model, Opts(model, form=form, **kw)))
        yield os.path.join(INPUTS, stem + ".harness.mlir"), harness_text(model, Opts(model, **kw))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS))
    ap.add_argument("--form", choices=["loop", "unrolled", "while", "dynamic"], default="loop",
                    help="loop (scf.for pair, the default), while (the forward an scf.while "
                         "of at most T steps run while i < %%n, an index argument), dynamic "
                         "(both loops scf.for to min(%%n, T)) or unrolled")
    ap.add_argument("--run-steps", type=int,
                    help="with --form while or dynamic --harness: the steps %%n the harness runs "
                         "(default T)")
    ap.add_argument("--steps", "-T", type=int, help="T (rnn, gru, pde), L (scan_layers), "
                    "M (microbatch)")
    ap.add_argument("--batch", "-B", type=int, help="B (rows per micro-batch; pde: unused)")
    ap.add_argument("--width", "-W", type=int, help="W (N grid points for pde)")
    ap.add_argument("--recompute-gates", action="store_true",
                    help="gru: stack h only, recompute z and c in the backward")
    ap.add_argument("--layers", type=int, default=2,
                    help="microbatch: L layers of the MLP (default 2)")
    ap.add_argument("--accumulate", choices=["add", "outs"], default="add",
                    help="rnn: sum the weight gradient with an explicit add (default) or "
                         "accumulate it through outs(%%gw)")
    ap.add_argument("--harness", action="store_true", help="write the harness @main instead")
    ap.add_argument("--bits", action="store_true",
                    help="with --harness: print the results' f32 bit patterns (printMemrefI32)")
    ap.add_argument("-o", "--output", help="output file (default stdout)")
    ap.add_argument("--write", action="store_true", help="rewrite the checked-in Inputs/")
    ap.add_argument("--check", action="store_true", help="fail if Inputs/ is stale")
    a = ap.parse_args()
    if a.write or a.check:
        stale = []
        for path, text in outputs():
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(path)
                if a.write:
                    os.makedirs(INPUTS, exist_ok=True)
                    with open(path, "w") as fh:
                        fh.write(text)
        if a.check and stale:
            print("stale (run gen_loops.py --write): " + " ".join(stale))
            return 1
        return 0
    if not a.model:
        ap.error("--model, --write or --check is required")
    if a.form in ("while", "dynamic") and a.model == "microbatch":
        ap.error("--form %s takes the scan models (rnn, gru, scan_layers, pde)" % a.form)
    o = Opts(a.model, a.form, a.steps, a.batch, a.width, a.recompute_gates,
             a.layers, a.run_steps)
    if o.run_steps is not None and not 0 <= o.run_steps <= o.steps:
        ap.error("--run-steps must be in [0, T]")
    if min(o.steps, o.batch, o.width, o.layers) < 1:
        ap.error("sizes must be positive")
    text = harness_text(a.model, o, a.bits) if a.harness else model_text(a.model, o)
    if a.output:
        with open(a.output, "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
