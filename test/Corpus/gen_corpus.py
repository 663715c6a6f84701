#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates the remat test corpus: training steps in linalg on tensors.

Each model is written once, against a small "ops" interface (dense, conv,
relu, pooling, ...).  Two back ends run that description:

* `MlirOps` (here) emits the forward ops and records, per op, an emitter of
  its backward ops (a tape); the backward is then emitted in reverse order,
  summing the gradients of values used more than once.  The result is one
  `func.func` per model: arguments are the inputs and parameters, results are
  the loss (`{remat.loss}`) and then the gradient of every parameter.
* `TorchOps` (check_gradients.py) runs the same description in PyTorch, whose
  autograd is the oracle for the hand-written backward.

Usage:
  gen_corpus.py                 write Inputs/<model>.mlir and .harness.mlir
  gen_corpus.py --check         fail if the checked-in files are out of date
  gen_corpus.py --harness MODEL print the harness (@main) of MODEL
  gen_corpus.py --stats         print ops / bytes per model
Python 3 standard library only.  The op text (mlir.py) and the argument
values and harness (argfill.py) are python/remat_import_torch's.
"""

import argparse
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "Inputs")

# MLIR text and argument values come from the importer's package, whose
# mlir.py and argfill.py need nothing beyond the standard library.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
sys.dont_write_bytecode = True  # keep the source tree clean
from remat_import_torch.argfill import Init, arg_seed, fill_arg, main_lines  # noqa: E402
from remat_import_torch.mlir import (  # noqa: E402
    V, affine_map, broadcast_op, collapse_op, empty_op, expand_op, extract_slice_op,
    fill_op, float_text, generic_op, insert_slice_op, matmul_op, names, transpose_op,
    types, window_op)


# --------------------------------------------------------------------------
# Tensors and the function builder.
# --------------------------------------------------------------------------
class T(V):
    """An SSA tensor value of the function being built."""

    def __init__(self, ssa, shape, elt="f32", fwd=True, grad=False):
        super().__init__(ssa, shape, elt)
        self.fwd = fwd          # defined before the backward part starts
        self.grad = grad        # depends on a parameter (needs a gradient)
        self.arg = False

    def __str__(self):
        return self.ssa


BODY_DEF = re.compile(r"((?:%[\w.$-]+(?:, )?)+) =")  # names a body line defines


class Func:
    """Accumulates the text of one func.func and its affine map aliases."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.maps = {}          # alias -> affine_map text
        self.used = set()
        self.consts = {}        # fill constants at the top of the body
        self.body_names = set() # SSA names defined inside op bodies
        self.phase_fwd = True
        self.nops = 0
        self.saved = {}         # forward values read by the backward
        self.fwd_bytes = 0      # bytes of every forward op result
        self.args = []
        self.batch_of = None    # dynamic batch: the argument it is read from
        self.bound = None       # dynamic batch: its upper bound
        self.scales = []        # dynamic batch: (ssa, c) of c / batch

    # -- names --------------------------------------------------------------
    def fresh(self, base):
        name, k = base, 2
        while name in self.used:
            name, k = "%s_%d" % (base, k), k + 1
        self.used.add(name)
        return "%" + name

    def value(self, base, shape, elt="f32", grad=False):
        return T(self.fresh(base), shape, elt, self.phase_fwd, grad)

    # -- text ---------------------------------------------------------------
    def amap(self, alias, dims, results):
        text = affine_map(dims, results)
        assert self.maps.get(alias, text) == text, alias
        self.maps[alias] = text
        return "#" + alias

    def comment(self, text):
        self.lines.append("  // " + text)

    def op(self, results, text, reads=(), init=False):
        """Appends one top-level op; `reads` are the tensors it reads; `init`
        marks results without storage of their own (empty tensors, initial
        values that an op then writes in place, views)."""
        self.nops += 1
        if self.phase_fwd:
            if not init and not self.batch_of:  # sizes at the bound: stats()
                self.fwd_bytes += sum(r.nbytes for r in results)
        else:
            for t in reads:
                if t.fwd and not t.arg:
                    self.saved[t.ssa] = t
        lhs = ", ".join(r.ssa for r in results)
        self.lines.append("  %s = %s" % (lhs, text) if lhs else "  " + text)

    FILLS = {"zero": ("0.0", "f32"), "ninf": ("0xFF800000", "f32"), "zero_i32": ("0", "i32")}

    def const(self, what):
        """A function-level scalar for linalg.fill: zero, ninf or zero_i32."""
        if what not in self.consts:
            self.consts[what] = self.fresh("fill_" + what)
        return self.consts[what]

    # -- generic building blocks --------------------------------------------
    def empty(self, base, shape, elt="f32"):
        e = self.value(base + "_e", shape, elt)
        text = empty_op(e.ty)
        if None in shape:  # the dynamic batch, from its argument
            text = text.replace("()", "(%batch)", 1)
        self.op([e], text, init=True)
        return e

    def bounds_attr(self, a):
        """remat.bounds of a dynamic argument: the static model's sizes."""
        if None not in a.shape:
            return ""
        return " {remat.bounds = array<i64: %s>}" % ", ".join(
            str(self.bound if d is None else d) for d in a.shape)

    def batch_scale(self, c):
        """An SSA f32 holding c / batch (dynamic batch only), defined where
        it is first needed: a backward scale computed before the forward
        would make the program interleave them."""
        for ssa, old in self.scales:
            if old == c:
                return ssa
        ssa = "%%batch_scale%d" % len(self.scales)
        self.scales.append((ssa, c))
        self.lines += ["  %s_c = arith.constant %s : f32" % (ssa, float_text(c)),
                       "  %s = arith.divf %s_c, %%batch_f32 : f32" % (ssa, ssa)]
        return ssa

    def batch_lines(self):
        """The batch (a tensor.dim of its argument) and every c / batch."""
        x = self.batch_of
        out = ["  %c0_batch = arith.constant 0 : index",
               "  %%batch = tensor.dim %s, %%c0_batch : %s" % (x.ssa, x.ty)]
        if self.scales:
            out += ["  %batch_i64 = arith.index_cast %batch : index to i64",
                    "  %batch_f32 = arith.sitofp %batch_i64 : i64 to f32"]
        return out

    def filled(self, base, shape, what="zero"):
        elt = self.FILLS[what][1]
        e = self.empty(base, shape, elt)
        z = self.value(base + "_z", shape, elt)
        self.op([z], fill_op(self.const(what), elt, e, z), init=True)
        return z

    def generic(self, results, ins, outs, maps, iters, body):
        """linalg.generic; `body` lines use %in, %in2, ... and %out, %out2."""
        argn = ["%in", "%in2", "%in3"][:len(ins)] + ["%out", "%out2"][:len(outs)]
        for line in body:
            m = BODY_DEF.match(line)
            if m:
                self.body_names.update(n[1:] for n in m.group(1).split(", "))
        self.op(results, generic_op(maps, iters, ins, outs, argn, body, results), ins)

    def text(self, header):
        out = [header]
        for alias, text in sorted(self.maps.items()):
            out.append("#%s = %s" % (alias, text))
        out.append("")
        sig = ",\n    ".join("%s: %s%s" % (a.ssa, a.ty, self.bounds_attr(a)) for a in self.args)
        out.append("func.func @%s(\n    %s)" % (self.name, sig))
        out.append("    -> (%s) {" % ",\n        ".join(self.result_sig))
        clash = self.body_names & self.used
        assert not clash, "model names shadow body names: %s" % sorted(clash)
        for what, ssa in sorted(self.consts.items(), key=lambda kv: kv[1]):
            out.append("  %s = arith.constant %s : %s" % ((ssa,) + self.FILLS[what]))
        if self.batch_of:
            out += self.batch_lines()
        out += self.lines
        out.append("}")
        return "\n".join(out) + "\n"


ID = {0: "()", 1: "(i)", 2: "(i, j)", 4: "(n, c, y, x)"}


def cst(value):
    """Body line defining the f32 constant %c."""
    return "%%c = arith.constant %s : f32" % float_text(value)


def dims_of(rank):
    return ID[rank][1:-1]


def ident(f, rank):
    return f.amap("id%d" % rank, dims_of(rank), dims_of(rank))


# --------------------------------------------------------------------------
# The MLIR back end: one emitter per op kind (forward and backward).
# --------------------------------------------------------------------------
EQUATIONS = {
    "dense": "h = x W + b (b optional); dW = x^T dh, db = sum_n dh, dx = dh W^T",
    "conv": "h = conv(pad(x, p), W) + b (stride 1, KxK kernels);\n"
            "  dW[f,c,i,j] = sum_{n,y,x} pad(x)[n,c,y+i,x+j] dh[n,f,y,x],"
            " db = sum_{n,y,x} dh,\n"
            "  dx = conv(pad(dh, K-1-p), W') with W'[c,f,i,j] = W[f,c,K-1-i,K-1-j]",
    "relu": "a = max(h, 0); dh = da * [a > 0]",
    "maxpool": "p, idx = max and first argmax over 2x2 windows (stride 2);\n"
               "  dx[n,c,y,x] = dp[n,c,y/2,x/2] * [idx[n,c,y/2,x/2] == 2(y%2) + x%2]",
    "avgpool": "p = 1/4 * sum over 2x2 windows (stride 2); dx[n,c,y,x] = dp[n,c,y/2,x/2] / 4",
    "upsample": "u[n,c,y,x] = x[n,c,y/2,x/2] (nearest, x2); dx = sum over 2x2 windows of du",
    "add": "s = a + b; da = ds, db = ds",
    "concat": "y = concat over channels (a, b); da, db = channel slices of dy",
    "flatten": "f = reshape(x, N x CHW); dx = reshape(df, N x C x H x W)",
    "gap": "g[n,c] = mean_{y,x} x[n,c,y,x]; dx[n,c,y,x] = dg[n,c] / HW",
    "xent": "loss = -1/N sum_{n,k} t log softmax(z); dz = (softmax(z) - t) / N"
            " (t one-hot)",
    "mse": "loss = mean (y - t)^2; dy = 2 (y - t) / numel(y)",
    "sqdiff": "loss = sum (a - b)^2; da = 2 (a - b), db = -2 (a - b)",
}


class Backend:
    """What every back end shares: the model's arguments and their values.
    A back end implements `_arg` and the layer methods of MlirOps."""

    def __init__(self):
        self.inits = []         # Init of every argument, in order
        self.params = []        # the parameters (they get gradients)

    def input(self, name, shape):
        return self._arg(name, shape, Init("uniform", arg_seed(len(self.inits))), False)

    def onehot(self, name, shape):
        return self._arg(name, shape, Init("onehot"), False)

    def param(self, name, shape, fan_in=None, gain=2.0):
        """He-uniform: std sqrt(gain / fan_in); biases get +-0.1."""
        scale = math.sqrt(3 * gain / fan_in) if fan_in else 0.1
        t = self._arg(name, shape, Init("uniform", arg_seed(len(self.inits)), scale), True)
        self.params.append(t)
        return t


class MlirOps(Backend):
    """Forward emitters; each pushes its backward emitter onto the tape."""

    def __init__(self, name, dynamic_batch=False):
        super().__init__()
        self.f = Func(name)
        self.dynamic_batch = dynamic_batch
        self.tape = []          # (kind, outputs, backward emitter)
        self.grads = {}         # ssa -> gradient tensor
        self.kinds = []

    def _arg(self, name, shape, init, grad):
        if self.dynamic_batch and not grad:  # inputs lead with the batch
            self.bound = shape[0]
            shape = [None] + list(shape[1:])
        t = T("%" + name, shape, fwd=True, grad=grad)
        if None in shape and not self.f.batch_of:
            self.f.batch_of, self.f.bound = t, self.bound
        assert name not in self.f.used, name
        self.f.used.add(name)
        t.arg = True
        self.f.args.append(t)
        self.inits.append(init)
        return t

    # -- tape ---------------------------------------------------------------
    def _record(self, kind, outs, backward):
        if kind not in self.kinds:
            self.kinds.append(kind)
        self.tape.append((kind, outs, backward))

    def _gname(self, t):
        """Name of the gradient of t (d<t>, then d<t>_2 ... for partial sums)."""
        return "d" + t.ssa[1:]

    def _acc(self, t, g):
        """Adds g to the gradient of t (fan-out: a value used twice)."""
        if not t.grad:
            return
        old = self.grads.get(t.ssa)
        if old is None:
            self.grads[t.ssa] = g
            return
        s = self.f.value(self._gname(t) + "_sum", t.shape)
        self._add_into(s, old, g)
        self.grads[t.ssa] = s

    # -- helpers ------------------------------------------------------------
    def _add_into(self, s, a, b):
        f = self.f
        e = f.empty(s.ssa[1:], s.shape)
        idm = ident(f, len(s.shape))
        f.generic([s], [a, b], [e], [idm] * 3, ["parallel"] * len(s.shape),
                  ["%r = arith.addf %in, %in2 : f32", "linalg.yield %r : f32"])

    def _pad(self, x, p, base):
        """Zero padding by p on both spatial sides: fill + insert_slice."""
        if p == 0:
            return x
        f = self.f
        n, c, h, w = x.shape
        z = f.filled(base, [n, c, h + 2 * p, w + 2 * p])
        xp = f.value(base, z.shape, grad=x.grad)
        f.op([xp], insert_slice_op(x, z, [0, 0, p, p], x.shape, [1] * 4), [x, z])
        return xp

    def _matmul(self, base, a, b, init=None):
        f = self.f
        m, n = a.shape[0], b.shape[1]
        init = init or f.filled(base, [m, n])
        r = f.value(base, [m, n], grad=a.grad or b.grad)
        f.op([r], matmul_op("linalg.matmul", a, b, init, r), [a, b, init])
        return r

    def _transpose(self, base, a):
        f = self.f
        e = f.empty(base, a.shape[::-1])
        r = f.value(base, a.shape[::-1])
        f.op([r], transpose_op(a, e, [1, 0]), [a])
        return r

    def _broadcast(self, base, b, shape, dims):
        f = self.f
        e = f.empty(base, shape)
        r = f.value(base + "_b", shape)
        f.op([r], broadcast_op(b, e, dims), [b], init=True)
        return r

    def _reduce_sum(self, base, g, keep):
        """Sums g over every dim but `keep` (bias gradients)."""
        f = self.f
        rank = len(g.shape)
        z = f.filled(base, [g.shape[keep]])
        r = f.value(base, [g.shape[keep]])
        d = dims_of(rank).split(", ")
        out = f.amap("keep%d_of%d" % (keep, rank), dims_of(rank), d[keep])
        iters = ["parallel" if i == keep else "reduction" for i in range(rank)]
        f.generic([r], [g], [z], [ident(f, rank), out], iters,
                  ["%r = arith.addf %in, %out : f32", "linalg.yield %r : f32"])
        return r

    def _conv(self, base, xp, w, init):
        f = self.f
        n, _, h, wd = xp.shape
        fo, _, k, _ = w.shape
        r = f.value(base, [n, fo, h - k + 1, wd - k + 1], grad=xp.grad or w.grad)
        f.op([r], window_op("linalg.conv_2d_nchw_fchw", 1, xp, w, init, r), [xp, w, init])
        return r

    def _sum_pool(self, base, x):
        """2x2 window sums with stride 2 (linalg.pooling_nchw_sum)."""
        f = self.f
        n, c, h, w = x.shape
        win = f.empty(base + "_win", [2, 2])
        z = f.filled(base, [n, c, h // 2, w // 2])
        r = f.value(base, z.shape, grad=x.grad)
        f.op([r], window_op("linalg.pooling_nchw_sum", 2, x, win, z, r), [x, win, z])
        return r

    def _from_half(self, base, g, body, extra=()):
        """out[n,c,y,x] = body(g[n,c,y/2,x/2], extra[..]) on the 2x grid."""
        f = self.f
        n, c, h, w = g.shape
        e = f.empty(base, [n, c, 2 * h, 2 * w])
        r = f.value(base, e.shape)
        half = f.amap("half4", "n, c, y, x", "n, c, y floordiv 2, x floordiv 2")
        ins = [g] + list(extra)
        f.generic([r], ins, [e], [half] * len(ins) + [ident(f, 4)], ["parallel"] * 4, body)
        return r

    def _constant(self, value, per_sample=None):
        """(body lines, name) of an f32 constant in a generic body: `value`,
        or with a dynamic batch and `per_sample` given, per_sample / batch
        (a value of the function: the batch is known at run time only)."""
        if self.dynamic_batch and per_sample is not None:
            return [], self.f.batch_scale(per_sample)
        return [cst(value)], "%c"

    def _scale(self, base, x, s, grad=False, per_sample=None):
        f = self.f
        e = f.empty(base, x.shape)
        r = f.value(base, x.shape, grad=grad)
        idm = ident(f, len(x.shape))
        pre, c = self._constant(s, per_sample)
        f.generic([r], [x], [e], [idm, idm], ["parallel"] * len(x.shape),
                  pre + ["%%r = arith.mulf %%in, %s : f32" % c, "linalg.yield %r : f32"])
        return r

    # -- layers -------------------------------------------------------------
    def dense(self, name, x, w, b=None):
        f = self.f
        n, o = x.shape[0], w.shape[1]
        f.comment("%s = %s %s%s" % (name, x.ssa[1:], w.ssa[1:], " + " + b.ssa[1:] if b else ""))
        init = self._broadcast(name, b, [n, o], [0]) if b else f.filled(name, [n, o])
        h = self._matmul(name, x, w, init)

        def backward(dh):
            xt = self._transpose(x.ssa[1:] + "_t", x)
            self._acc(w, self._matmul(self._gname(w), xt, dh))
            if b:
                self._acc(b, self._reduce_sum(self._gname(b), dh, 1))
            if x.grad:
                wt = self._transpose(w.ssa[1:] + "_t", w)
                self._acc(x, self._matmul(self._gname(x), dh, wt))
        self._record("dense", [h], backward)
        return h

    def conv(self, name, x, w, b, pad):
        f = self.f
        n, _, hh, ww = x.shape
        fo, c, k, _ = w.shape
        f.comment("%s = conv(%s, %s, pad %d) + %s" % (name, x.ssa[1:], w.ssa[1:], pad, b.ssa[1:]))
        xp = self._pad(x, pad, name + "_xp")
        init = self._broadcast(name, b, [n, fo, hh + 2 * pad - k + 1, ww + 2 * pad - k + 1],
                               [0, 2, 3])
        h = self._conv(name, xp, w, init)

        def backward(dh):
            # dW: correlate the padded input with dh over n, y, x.
            z = f.filled(self._gname(w), w.shape)
            dw = f.value(self._gname(w), w.shape)
            mx = f.amap("cw_x", "f, c, i, j, n, y, x", "n, c, y + i, x + j")
            mg = f.amap("cw_dh", "f, c, i, j, n, y, x", "n, f, y, x")
            mw = f.amap("cw_dw", "f, c, i, j, n, y, x", "f, c, i, j")
            f.generic([dw], [xp, dh], [z], [mx, mg, mw], ["parallel"] * 4 + ["reduction"] * 3,
                      ["%m = arith.mulf %in, %in2 : f32", "%r = arith.addf %out, %m : f32",
                       "linalg.yield %r : f32"])
            self._acc(w, dw)
            self._acc(b, self._reduce_sum(self._gname(b), dh, 1))
            if x.grad:
                # dx: full correlation of dh with the flipped, transposed kernel.
                wf_e = f.empty(w.ssa[1:] + "_flip", [c, fo, k, k])
                wf = f.value(w.ssa[1:] + "_flip", [c, fo, k, k])
                flip = f.amap("flip%d" % k, "c, f, i, j", "f, c, %d - i, %d - j" % (k - 1, k - 1))
                f.generic([wf], [w], [wf_e], [flip, ident(f, 4)], ["parallel"] * 4,
                          ["linalg.yield %in : f32"])
                dhp = self._pad(dh, k - 1 - pad, self._gname(h) + "_p")
                z = f.filled(self._gname(x), x.shape)
                self._acc(x, self._conv(self._gname(x), dhp, wf, z))
        self._record("conv", [h], backward)
        return h

    def relu(self, name, h):
        f = self.f
        e = f.empty(name, h.shape)
        a = f.value(name, h.shape, grad=h.grad)
        idm = ident(f, len(h.shape))
        iters = ["parallel"] * len(h.shape)
        f.generic([a], [h], [e], [idm, idm], iters,
                  ["%zero = arith.constant 0.0 : f32", "%r = arith.maximumf %in, %zero : f32",
                   "linalg.yield %r : f32"])

        def backward(da):
            de = f.empty(self._gname(h), h.shape)
            dh = f.value(self._gname(h), h.shape)
            f.generic([dh], [da, a], [de], [idm] * 3, iters,
                      ["%zero = arith.constant 0.0 : f32",
                       "%p = arith.cmpf ogt, %in2, %zero : f32",
                       "%r = arith.select %p, %in, %zero : f32", "linalg.yield %r : f32"])
            self._acc(h, dh)
        self._record("relu", [a], backward)
        return a

    def maxpool(self, name, x):
        f = self.f
        n, c, h, w = x.shape
        shape = [n, c, h // 2, w // 2]
        win = f.empty(name + "_win", [2, 2])
        zv = f.filled(name, shape, "ninf")
        zi = f.filled(name + "_idx", shape, "zero_i32")
        p = f.value(name, shape, grad=x.grad)
        idx = f.value(name + "_idx", shape, "i32")
        d = "n, c, y, x, i, j"
        maps = [f.amap("pool_in", d, "n, c, 2 * y + i, 2 * x + j"), f.amap("pool_win", d, "i, j"),
                f.amap("pool_out", d, "n, c, y, x"), f.amap("pool_out", d, "n, c, y, x")]
        f.generic([p, idx], [x, win], [zv, zi], maps, ["parallel"] * 4 + ["reduction"] * 2,
                  ["%wi = linalg.index 4 : index", "%wj = linalg.index 5 : index",
                   "%k = affine.apply affine_map<(i, j) -> (i * 2 + j)>(%wi, %wj)",
                   "%ki = arith.index_cast %k : index to i32",
                   "%gt = arith.cmpf ogt, %in, %out : f32",
                   "%mv = arith.select %gt, %in, %out : f32",
                   "%mi = arith.select %gt, %ki, %out2 : i32",
                   "linalg.yield %mv, %mi : f32, i32"])

        def backward(dp):
            dx = self._from_half(self._gname(x), dp, [
                "%yi = linalg.index 2 : index", "%xi = linalg.index 3 : index",
                "%k = affine.apply affine_map<(i, j) -> ((i mod 2) * 2 + j mod 2)>(%yi, %xi)",
                "%ki = arith.index_cast %k : index to i32",
                "%hit = arith.cmpi eq, %in2, %ki : i32",
                "%zero = arith.constant 0.0 : f32",
                "%r = arith.select %hit, %in, %zero : f32", "linalg.yield %r : f32"], [idx])
            self._acc(x, dx)
        self._record("maxpool", [p], backward)
        return p

    def avgpool(self, name, x):
        s = self._sum_pool(name + "_sum", x)
        p = self._scale(name, s, 0.25, x.grad)

        def backward(dp):
            self._acc(x, self._from_half(self._gname(x), dp, [
                cst(0.25), "%r = arith.mulf %in, %c : f32",
                "linalg.yield %r : f32"]))
        self._record("avgpool", [p], backward)
        return p

    def upsample(self, name, x):
        u = self._from_half(name, x, ["linalg.yield %in : f32"])
        u.grad = x.grad

        def backward(du):
            self._acc(x, self._sum_pool(self._gname(x), du))
        self._record("upsample", [u], backward)
        return u

    def add(self, name, a, b):
        s = self.f.value(name, a.shape, grad=a.grad or b.grad)
        self._add_into(s, a, b)

        def backward(ds):
            self._acc(a, ds)
            self._acc(b, ds)
        self._record("add", [s], backward)
        return s

    def concat(self, name, a, b):
        f = self.f
        n, ca, h, w = a.shape
        cb = b.shape[1]
        e = f.empty(name, [n, ca + cb, h, w])
        half = f.value(name + "_a", e.shape)
        y = f.value(name, e.shape, grad=a.grad or b.grad)
        for dst, src, off, into in ((half, a, 0, e), (y, b, ca, half)):
            f.op([dst], insert_slice_op(src, into, [0, off, 0, 0], src.shape, [1] * 4),
                 [src, into], init=dst is half)

        def backward(dy):
            for src, off in ((a, 0), (b, ca)):
                if src.grad:
                    d = f.value(self._gname(src), src.shape)
                    f.op([d], extract_slice_op(dy, [0, off, 0, 0], src.shape, [1] * 4, d),
                         [dy])
                    self._acc(src, d)
        self._record("concat", [y], backward)
        return y

    def flatten(self, name, x):
        f = self.f
        n, c, h, w = x.shape
        y = f.value(name, [n, c * h * w], grad=x.grad)
        f.op([y], collapse_op(x, [[0], [1, 2, 3]], y), [x], init=True)

        def backward(dy):
            dx = f.value(self._gname(x), x.shape)
            f.op([dx], expand_op(dy, [[0], [1, 2, 3]], dx), [dy])
            self._acc(x, dx)
        self._record("flatten", [y], backward)
        return y

    def gap(self, name, x):
        f = self.f
        n, c, h, w = x.shape
        z = f.filled(name, [n, c])
        g = f.value(name, [n, c], grad=x.grad)
        nc = f.amap("nc_of4", "n, c, y, x", "n, c")
        inv = 1.0 / (h * w)
        f.generic([g], [x], [z], [ident(f, 4), nc], ["parallel"] * 2 + ["reduction"] * 2,
                  [cst(inv), "%m = arith.mulf %in, %c : f32",
                   "%r = arith.addf %out, %m : f32", "linalg.yield %r : f32"])

        def backward(dg):
            e = f.empty(self._gname(x), x.shape)
            dx = f.value(self._gname(x), x.shape)
            f.generic([dx], [dg], [e], [nc, ident(f, 4)], ["parallel"] * 4,
                      [cst(inv), "%r = arith.mulf %in, %c : f32",
                       "linalg.yield %r : f32"])
            self._acc(x, dx)
        self._record("gap", [g], backward)
        return g

    # -- losses (they also seed the backward) ---------------------------------
    def _scalar_sum(self, name, ins, body):
        f = self.f
        z = f.filled(name, [])
        loss = f.value(name, [], grad=True)
        rank = len(ins[0].shape)
        f.generic([loss], ins, [z], [ident(f, rank)] * len(ins)
                  + [f.amap("scalar%d" % rank, dims_of(rank), "")], ["reduction"] * rank, body)
        return loss

    def xent(self, name, z, t):
        """Softmax cross-entropy with one-hot targets, averaged over the batch."""
        f = self.f
        n, k = z.shape
        row = f.amap("row", "i, j", "i")
        mz = f.filled(name + "_max", [n], "ninf")
        mx = f.value(name + "_max", [n])
        f.generic([mx], [z], [mz], [ident(f, 2), row], ["parallel", "reduction"],
                  ["%r = arith.maximumf %in, %out : f32", "linalg.yield %r : f32"])
        sz = f.filled(name + "_sumexp", [n])
        se = f.value(name + "_sumexp", [n])
        f.generic([se], [z, mx], [sz], [ident(f, 2), row, row], ["parallel", "reduction"],
                  ["%m = arith.subf %in, %in2 : f32", "%v = math.exp %m : f32",
                   "%r = arith.addf %out, %v : f32", "linalg.yield %r : f32"])
        le = f.empty(name + "_logp", [n, k])
        logp = f.value(name + "_logp", [n, k], grad=True)
        f.generic([logp], [z, mx, se], [le], [ident(f, 2), row, row, ident(f, 2)],
                  ["parallel", "parallel"],
                  ["%m = arith.subf %in, %in2 : f32", "%v = math.log %in3 : f32",
                   "%r = arith.subf %m, %v : f32", "linalg.yield %r : f32"])
        pre, c = self._constant(None if n is None else -1.0 / n, -1.0)
        loss = self._scalar_sum(name, [logp, t], pre + [
            "%m = arith.mulf %in, %in2 : f32",
            "%%v = arith.mulf %%m, %s : f32" % c, "%r = arith.addf %out, %v : f32",
            "linalg.yield %r : f32"])

        def backward():
            de = f.empty(self._gname(z), z.shape)
            dz = f.value(self._gname(z), z.shape)
            pre, c = self._constant(None if n is None else 1.0 / n, 1.0)
            f.generic([dz], [logp, t], [de], [ident(f, 2)] * 3, ["parallel", "parallel"],
                      pre + ["%v = math.exp %in : f32", "%m = arith.subf %v, %in2 : f32",
                             "%%r = arith.mulf %%m, %s : f32" % c, "linalg.yield %r : f32"])
            self._acc(z, dz)
        self._record("xent", [loss], backward)
        return loss

    def _diff(self, name, a, b):
        f = self.f
        e = f.empty(name, a.shape)
        d = f.value(name, a.shape, grad=True)
        idm = ident(f, len(a.shape))
        f.generic([d], [a, b], [e], [idm] * 3, ["parallel"] * len(a.shape),
                  ["%r = arith.subf %in, %in2 : f32", "linalg.yield %r : f32"])
        return d

    def mse(self, name, y, t):
        d = self._diff(name + "_diff", y, t)
        per_sample = 1.0 / math.prod(y.shape[1:])  # mean over the batch too
        c = None if y.shape[0] is None else 1.0 / math.prod(y.shape)
        pre, cs = self._constant(c, per_sample)
        loss = self._scalar_sum(name, [d], pre + [
            "%m = arith.mulf %in, %in : f32",
            "%%v = arith.mulf %%m, %s : f32" % cs, "%r = arith.addf %out, %v : f32",
            "linalg.yield %r : f32"])

        def backward():
            self._acc(y, self._scale(self._gname(y), d, None if c is None else 2 * c,
                                     per_sample=2 * per_sample))
        self._record("mse", [loss], backward)
        return loss

    def sqdiff(self, name, a, b):
        d = self._diff(name + "_diff", a, b)
        loss = self._scalar_sum(name, [d], [
            "%m = arith.mulf %in, %in : f32", "%r = arith.addf %out, %m : f32",
            "linalg.yield %r : f32"])

        def backward():
            self._acc(a, self._scale(self._gname(a), d, 2.0))
            self._acc(b, self._scale(self._gname(b), d, -2.0))
        self._record("sqdiff", [loss], backward)
        return loss

    # -- the whole function -------------------------------------------------
    def finish(self, loss):
        f = self.f
        f.phase_fwd = False
        f.comment("---- backward ----")
        (kind, outs, seed), rest = self.tape[-1], self.tape[:-1]
        assert outs[0] is loss, "the loss must be the last op"
        f.comment("backward of %s (%s)" % (loss, kind))
        seed()
        for kind, outs, backward in reversed(rest):
            g = self.grads.get(outs[0].ssa)
            if g is not None:
                f.comment("backward of %s (%s)" % (outs[0], kind))
                backward(g)
        results = [loss] + [self.grads[p.ssa] for p in self.params]
        f.result_sig = ["%s {remat.loss}" % loss.ty] + [r.ty for r in results[1:]]
        f.lines.append("  return %s\n      : %s" % (names(results), types(results)))
        f.nops += 1
        return results


# --------------------------------------------------------------------------
# The models.  `m` is a back end (MlirOps or check_gradients.TorchOps).
# --------------------------------------------------------------------------
def mlp(m):
    """Deep MLP: 8 dense layers 32-64-...-64-10 with ReLU, batch 128,
    softmax cross-entropy."""
    x = m.input("x", [128, 32])
    t = m.onehot("t", [128, 10])
    widths = [32] + [64] * 7 + [10]
    a = x
    for i in range(1, 9):
        w = m.param("w%d" % i, widths[i - 1:i + 1], fan_in=widths[i - 1],
                    gain=2.0 if i < 8 else 1.0)
        b = m.param("b%d" % i, [widths[i]])
        h = m.dense("h%d" % i, a, w, b)
        a = m.relu("a%d" % i, h) if i < 8 else h
    return m.xent("loss", a, t)


def conv_relu(m, name, x, cin, cout, k=3, gain=2.0):
    w = m.param("w" + name, [cout, cin, k, k], fan_in=cin * k * k, gain=gain)
    b = m.param("b" + name, [cout])
    return m.relu("a" + name, m.conv("h" + name, x, w, b, k // 2))


def cnn(m):
    """Small CNN, batch 4, 3x16x16 images: conv3x3(3->16) relu maxpool,
    conv3x3(16->32) relu maxpool, flatten, dense(512->10), cross-entropy."""
    x = m.input("x", [4, 3, 16, 16])
    t = m.onehot("t", [4, 10])
    p1 = m.maxpool("p1", conv_relu(m, "1", x, 3, 16))
    p2 = m.maxpool("p2", conv_relu(m, "2", p1, 16, 32))
    f = m.flatten("f", p2)
    w3 = m.param("w3", [512, 10], fan_in=512, gain=1.0)
    b3 = m.param("b3", [10])
    return m.xent("loss", m.dense("z", f, w3, b3), t)


def resnet(m):
    """ResNet-like, batch 2, 3x16x16: stem conv3x3(3->16) relu, 4 residual
    blocks a' = relu(a + conv(relu(conv(a)))) at 16 channels, global average
    pooling, dense(16->10), cross-entropy."""
    x = m.input("x", [2, 3, 16, 16])
    t = m.onehot("t", [2, 10])
    a = conv_relu(m, "0", x, 3, 16)
    for i in range(1, 5):
        r = conv_relu(m, "%da" % i, a, 16, 16)
        w = m.param("w%db" % i, [16, 16, 3, 3], fan_in=16 * 9, gain=0.5)
        b = m.param("b%db" % i, [16])
        h = m.conv("h%db" % i, r, w, b, 1)
        a = m.relu("a%d" % i, m.add("s%d" % i, a, h))
    g = m.gap("g", a)
    w = m.param("wfc", [16, 10], fan_in=16, gain=1.0)
    b = m.param("bfc", [10])
    return m.xent("loss", m.dense("z", g, w, b), t)


def unet(m):
    """U-Net-like, batch 2, 3x16x16 -> 1x16x16: encoder (2 conv-relu at 8 ch,
    avgpool, 2 conv-relu at 16 ch, avgpool), bottleneck conv-relu (32 ch),
    decoder (nearest upsample, concat skip, conv-relu) twice, 1x1 conv,
    mean squared error against a target image."""
    x = m.input("x", [2, 3, 16, 16])
    t = m.input("t", [2, 1, 16, 16])
    s1 = conv_relu(m, "e1b", conv_relu(m, "e1a", x, 3, 8), 8, 8)
    d1 = m.avgpool("pool1", s1)
    s2 = conv_relu(m, "e2b", conv_relu(m, "e2a", d1, 8, 16), 16, 16)
    d2 = m.avgpool("pool2", s2)
    bn = conv_relu(m, "bn", d2, 16, 32)
    c2 = m.concat("c2", m.upsample("u2", bn), s2)
    r2 = conv_relu(m, "dec2", c2, 48, 16)
    c1 = m.concat("c1", m.upsample("u1", r2), s1)
    r1 = conv_relu(m, "dec1", c1, 24, 8)
    w = m.param("wout", [1, 8, 1, 1], fan_in=8, gain=1.0)
    b = m.param("bout", [1])
    return m.mse("loss", m.conv("y", r1, w, b, 0), t)


def unet_deep(m):
    """U-Net with long skips where activations dominate (the parameters are
    a few % of the peak): batch 2, 1x48x48 -> 1x48x48, three levels of
    three conv-relu (4, 8, 16 ch) each followed by avgpool, a bottleneck
    conv-relu (16 ch), then three times: nearest upsample, concat the
    level's skip, three conv-relu; 1x1 conv, MSE against a target image."""
    x = m.input("x", [2, 1, 48, 48])
    t = m.input("t", [2, 1, 48, 48])

    def convs(prefix, a, cin, ch):
        for i in "abc":
            a, cin = conv_relu(m, prefix + i, a, cin, ch), ch
        return a

    skips, a, cin = [], x, 1
    for level, ch in enumerate([4, 8, 16], 1):
        a = convs("e%d" % level, a, cin, ch)
        skips.append((a, ch))
        a, cin = m.avgpool("pool%d" % level, a), ch
    a, cin = conv_relu(m, "bn", a, cin, 16), 16
    for level in (3, 2, 1):
        s, ch = skips[level - 1]
        c = m.concat("c%d" % level, m.upsample("u%d" % level, a), s)
        a, cin = convs("d%d" % level, c, cin + ch, ch), ch
    w = m.param("wout", [1, 4, 1, 1], fan_in=4, gain=1.0)
    b = m.param("bout", [1])
    return m.mse("loss", m.conv("y", a, w, b, 0), t)


def siamese(m):
    """Siamese network, batch 4, two 3x16x16 inputs through one shared branch
    (conv3x3(3->8) relu maxpool, conv3x3(8->16) relu avgpool, flatten,
    dense(256->32) relu, dense(32->16) without bias, which would cancel);
    loss = sum of squared differences of the two embeddings.  Shared weights
    receive the sum of both branches' gradients."""
    x1 = m.input("x1", [4, 3, 16, 16])
    x2 = m.input("x2", [4, 3, 16, 16])
    w1 = m.param("w1", [8, 3, 3, 3], fan_in=27)
    b1 = m.param("b1", [8])
    w2 = m.param("w2", [16, 8, 3, 3], fan_in=72)
    b2 = m.param("b2", [16])
    w3 = m.param("w3", [256, 32], fan_in=256)
    b3 = m.param("b3", [32])
    w4 = m.param("w4", [32, 16], fan_in=32, gain=1.0)

    def branch(s, x):
        a = m.relu("a1" + s, m.conv("h1" + s, x, w1, b1, 1))
        a = m.relu("a2" + s, m.conv("h2" + s, m.maxpool("p1" + s, a), w2, b2, 1))
        f = m.flatten("f" + s, m.avgpool("p2" + s, a))
        a = m.relu("a3" + s, m.dense("h3" + s, f, w3, b3))
        return m.dense("e" + s, a, w4)
    return m.sqdiff("loss", branch("_l", x1), branch("_r", x2))


MODELS = {"mlp": mlp, "cnn": cnn, "resnet": resnet, "unet": unet,
          "siamese": siamese, "unet_deep": unet_deep}


# --------------------------------------------------------------------------
# Output files.
# --------------------------------------------------------------------------
# Layers whose emitters take a dynamic batch (--dynamic-batch).
DYNAMIC_KINDS = {"dense", "relu", "add", "xent", "mse", "sqdiff"}
# The batch sizes the harness of a dynamic model calls it at (and its bound).
DYNAMIC_SIZES = (1, 3)


def build(model, dynamic_batch=False):
    """Runs the model on the MLIR back end; returns the MlirOps."""
    m = MlirOps(model, dynamic_batch)
    loss = MODELS[model](m)
    m.finish(loss)
    if dynamic_batch and set(m.kinds) - DYNAMIC_KINDS:
        sys.exit("gen_corpus.py: --dynamic-batch takes models of %s layers; %s has %s"
                 % (", ".join(sorted(DYNAMIC_KINDS)), model,
                    ", ".join(sorted(set(m.kinds) - DYNAMIC_KINDS))))
    return m


def kib(n):
    return "%.1f KiB" % (n / 1024.0)


def stats(m):
    f = m.f
    return {"ops": f.nops + len(f.consts),
            "params": sum(p.nbytes for p in m.params),
            "inputs": sum(a.nbytes for a in f.args if not a.grad),
            "forward": f.fwd_bytes,
            "saved": sum(t.nbytes for t in f.saved.values())}


def model_text(model, dynamic_batch=False):
    m = build(model, dynamic_batch)
    s = stats(build(model))  # with a dynamic batch: at its bound
    doc = MODELS[model].__doc__
    hdr = ["// GENERATED by test/Corpus/gen_corpus.py; do not edit.",
           "// Regenerate: python3 test/Corpus/gen_corpus.py" +
           (" --model %s --dynamic-batch" % model if dynamic_batch else ""), "//"]
    hdr += ["// " + l.strip() for l in doc.strip().splitlines()]
    if dynamic_batch:
        hdr.append("// The batch is dynamic (?), bounded by remat.bounds at %d; the sizes"
                   % m.f.bound)
        hdr.append("// below are at the bound.")
    hdr.append("//")
    hdr.append("// Arguments (inputs, then parameters in order of use):")
    for a in m.f.args:
        hdr.append("//   %-8s %s%s" % (a.ssa, a.ty, "  (parameter)" if a.grad else ""))
    hdr.append("// Results: the loss, then d(loss)/d(parameter) for every parameter.")
    hdr.append("// Sizes: %d top-level ops; parameters %s, inputs %s, forward values %s, of which"
               % (s["ops"], kib(s["params"]), kib(s["inputs"]), kib(s["forward"])))
    hdr.append("// the backward reads %s (activations kept without rematerialization)."
               % kib(s["saved"]))
    hdr.append("//")
    hdr.append("// Gradient equations (dX = d(loss)/dX; a value used twice gets the sum):")
    for k in m.kinds:
        for i, line in enumerate(EQUATIONS[k].splitlines()):
            hdr.append("//   " + ("%-9s" % (k + ":") if i == 0 else "         ") + line.strip())
    return m.f.text("\n".join(hdr))


def harness_text(model):
    """@main: fills the arguments, calls the model, prints every result."""
    m = build(model)
    f = m.f
    lines = ["// GENERATED by test/Corpus/gen_corpus.py; do not edit.",
             "// Harness of @%s: concatenate with the model and run (see run_model.sh)."
             % model,
             "// Prints the loss, then the gradient of every parameter (argument order).",
             "// Argument values: u(i) = hash(i, seed) in [-1, 1) of the row-major",
             "// linear index i (integer hash, exact), times a scale (see gen_corpus.py)."]
    rtypes = ["tensor<f32>"] + [p.ty for p in m.params]
    lines += main_lines(model, f.args, m.inits, rtypes)
    return "\n".join(lines) + "\n"


def dynamic_harness_text(model):
    """@main of a dynamic-batch model: calls it at batch 1, 3 and the bound
    (parameters filled once, inputs per size with the same values as the
    static harness's leading rows) and prints every result of every call."""
    m = build(model, dynamic_batch=True)
    f = m.f
    sizes = DYNAMIC_SIZES + (f.bound,)
    lines = ["// GENERATED by test/Corpus/gen_corpus.py; do not edit.",
             "// Harness of @%s with a dynamic batch (gen_corpus.py --harness %s "
             "--dynamic-batch):" % (model, model),
             "// calls it at batch %s and prints the loss and every gradient of each call."
             % ", ".join(str(n) for n in sizes),
             "func.func private @printMemrefF32(tensor<*xf32>)", "", "func.func @main() {"]
    for a, init in zip(f.args, m.inits):
        if None not in a.shape:
            lines += fill_arg(a, init)
    rtypes = ["tensor<f32>"] + [p.ty for p in m.params]
    for n in sizes:
        operands = []
        for a, init in zip(f.args, m.inits):
            if None not in a.shape:
                operands.append(a.ssa)
                continue
            v = V("%s_b%d" % (a.ssa, n), [n] + a.shape[1:], a.elt)
            lines += fill_arg(v, init)
            lines.append("  %s_d = tensor.cast %s : %s to %s" % (v.ssa, v.ssa, v.ty, a.ty))
            operands.append(v.ssa + "_d")
        res = ["%%res%d_b%d" % (i, n) for i in range(len(rtypes))]
        lines.append("  %s = func.call @%s(%s)" % (", ".join(res), model, ", ".join(operands)))
        lines.append("      : (%s) -> (%s)" % (types(f.args), ", ".join(rtypes)))
        for r, ty in zip(res, rtypes):
            lines.append("  %s_u = tensor.cast %s : %s to tensor<*xf32>" % (r, r, ty))
            lines.append("  func.call @printMemrefF32(%s_u) : (tensor<*xf32>) -> ()" % r)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def outputs():
    for model in MODELS:
        yield os.path.join(INPUTS, model + ".mlir"), model_text(model)
        yield os.path.join(INPUTS, model + ".harness.mlir"), harness_text(model)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if files are stale")
    ap.add_argument("--harness", metavar="MODEL", help="print the harness of MODEL")
    ap.add_argument("--model", metavar="MODEL", choices=sorted(MODELS),
                    help="print MODEL (the checked-in files are written without it)")
    ap.add_argument("--dynamic-batch", action="store_true",
                    help="with --model or --harness: the inputs' batch is dynamic (?), "
                         "bounded by remat.bounds at the model's batch; the harness calls "
                         "the model at batch 1, 3 and the bound")
    ap.add_argument("--stats", action="store_true", help="print sizes per model")
    args = ap.parse_args()
    if args.harness:
        sys.stdout.write(dynamic_harness_text(args.harness) if args.dynamic_batch
                         else harness_text(args.harness))
        return 0
    if args.model:
        sys.stdout.write(model_text(args.model, args.dynamic_batch))
        return 0
    if args.stats:
        print("%-8s %5s %12s %12s %12s %12s" % ("model", "ops", "params", "inputs",
                                                 "forward", "saved"))
        for model in MODELS:
            s = stats(build(model))
            print("%-8s %5d %12d %12d %12d %12d" % (model, s["ops"], s["params"], s["inputs"],
                                                     s["forward"], s["saved"]))
        return 0
    stale = []
    for path, text in outputs():
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not args.check:
                os.makedirs(INPUTS, exist_ok=True)
                with open(path, "w") as fh:
                    fh.write(text)
    if args.check and stale:
        print("stale (run gen_corpus.py): " + " ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
