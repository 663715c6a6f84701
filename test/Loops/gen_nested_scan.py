#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes a scan inside a scan: a stacked RNN of L layers, each a scan over T
steps, written as nested loops (an outer scan over the stacked layer
parameters whose body is the time scan), as a JAX `lax.scan` over layers of
a `lax.scan` over time lowers to SCF; and the same math unrolled.

  layer l:  h_0 = 0, h_{t+1} = tanh(X_l[t] Wx_l + h_t Wh_l), X_{l+1}[t] = h_{t+1}
  loss = sum(X_L)

Forward (`--form nested`): the outer loop carries the sequence X_l and
stacks, per layer, its input X_l, the hidden states before each update
[T, B, W] and the layer's output [T, B, W] (the residuals the backward
reads); its body is the time scan, stacking h_t and y_t = h_{t+1}.
Backward: the outer loop runs the layers in reverse, reading row l of each
outer stack, and its body is the time scan's backward (rows T-1-s),
stacking dX_l[t]; the weight gradients are written into stacked gradients
at row l.  `--form unrolled`: the same ops in the same order, straight-line
(no stacks), so both print the same bits.

Usage: gen_nested_scan.py [--layers L --steps T --batch B --width W]
                          [--form nested|unrolled] [--harness] [-o FILE]
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
from remat_import_torch.argfill import Init, arg_seed, main_lines  # noqa: E402

MAPS = """#id2 = affine_map<(i, j) -> (i, j)>
#mm_a = affine_map<(n, i, j) -> (n, j)>
#mm_b = affine_map<(n, i, j) -> (j, i)>
#nt_b = affine_map<(n, i, j) -> (i, j)>
#mm_o = affine_map<(n, i, j) -> (n, i)>
#red2 = affine_map<(i, j) -> ()>
#tn_a = affine_map<(i, j, n) -> (n, i)>
#tn_b = affine_map<(i, j, n) -> (n, j)>
#tn_o = affine_map<(i, j, n) -> (i, j)>"""


class Arg:
    def __init__(self, ssa, shape):
        self.ssa, self.shape, self.elt = ssa, shape, "f32"
        self.ty = "tensor<%sxf32>" % "x".join(map(str, shape))


class Body:
    """The ops of one time step forward or backward, names suffixed."""

    def __init__(self, o, out, sfx):
        self.o, self.out, self.sfx = o, out, sfx
        self.r = "tensor<%dx%dxf32>" % (o.batch, o.width)
        self.w = "tensor<%dx%dxf32>" % (o.width, o.width)

    def emit(self, line):
        self.out.append("    " + line)

    def zeros(self, name, ty):
        self.emit("%%%s_e%s = tensor.empty() : %s" % (name, self.sfx, ty))
        self.emit("%%%s_z%s = linalg.fill ins(%%zero : f32) outs(%%%s_e%s : %s) -> %s"
                  % (name, self.sfx, name, self.sfx, ty, ty))
        return "%%%s_z%s" % (name, self.sfx)

    def contract(self, name, a, b, maps, ty, ta, tb):
        """out[...] += a * b over the reduced index, into zeros."""
        z = self.zeros(name, ty)
        self.emit("%%%s%s = linalg.generic {indexing_maps = [%s], iterator_types = "
                  "[\"parallel\", \"parallel\", \"reduction\"]}" % (name, self.sfx, maps))
        self.emit("    ins(%s, %s : %s, %s) outs(%s : %s) {" % (a, b, ta, tb, z, ty))
        self.emit("^bb0(%a: f32, %b: f32, %acc: f32):")
        self.emit("  %m = arith.mulf %a, %b : f32")
        self.emit("  %s = arith.addf %acc, %m : f32")
        self.emit("  linalg.yield %s : f32")
        self.emit("} -> " + ty)
        return "%%%s%s" % (name, self.sfx)

    def pointwise(self, name, ins, ty, body):
        """A parallel 2-D generic of `ins` whose body computes %r from %x0..."""
        self.emit("%%%s_e%s = tensor.empty() : %s" % (name, self.sfx, ty))
        self.emit("%%%s%s = linalg.generic {indexing_maps = [%s], iterator_types = "
                  "[\"parallel\", \"parallel\"]}" % (name, self.sfx,
                                                    ", ".join(["#id2"] * (len(ins) + 1))))
        self.emit("    ins(%s : %s) outs(%%%s_e%s : %s) {"
                  % (", ".join(ins), ", ".join([ty] * len(ins)), name, self.sfx, ty))
        self.emit("^bb0(%s, %%out: f32):" % ", ".join("%%x%d: f32" % k for k in range(len(ins))))
        for line in body:
            self.emit("  " + line)
        self.emit("  linalg.yield %r : f32")
        self.emit("} -> " + ty)
        return "%%%s%s" % (name, self.sfx)

    def forward(self, x, h, wx, wh):
        """y = tanh(x wx + h wh)."""
        p = self.contract("p", x, wx, "#mm_a, #nt_b, #mm_o", self.r, self.r, self.w)
        q = self.contract("q", h, wh, "#mm_a, #nt_b, #mm_o", self.r, self.r, self.w)
        return self.pointwise("y", [p, q], self.r,
                              ["%s = arith.addf %x0, %x1 : f32", "%r = math.tanh %s : f32"])

    def backward(self, dseq_t, dh, y, x, h, wx, wh):
        """da, the gradients' contributions, dx and dh of one step."""
        da = self.pointwise("da", [dseq_t, dh, y], self.r,
                            ["%d = arith.addf %x0, %x1 : f32", "%y2 = arith.mulf %x2, %x2 : f32",
                             "%one = arith.constant 1.0 : f32", "%s = arith.subf %one, %y2 : f32",
                             "%r = arith.mulf %d, %s : f32"])
        gxc = self.contract("gxc", x, da, "#tn_a, #tn_b, #tn_o", self.w, self.r, self.r)
        ghc = self.contract("ghc", h, da, "#tn_a, #tn_b, #tn_o", self.w, self.r, self.r)
        dx = self.contract("dx", da, wx, "#mm_a, #mm_b, #mm_o", self.r, self.r, self.w)
        dhn = self.contract("dhn", da, wh, "#mm_a, #mm_b, #mm_o", self.r, self.r, self.w)
        return gxc, ghc, dx, dhn

    def add(self, name, a, b, ty):
        return self.pointwise(name, [a, b], ty, ["%r = arith.addf %x0, %x1 : f32"])


def signature(o):
    seq = Arg("%x", [o.steps, o.batch, o.width])
    wx = Arg("%wx", [o.layers, o.width, o.width])
    wh = Arg("%wh", [o.layers, o.width, o.width])
    return [seq, wx, wh], ["tensor<f32>", wx.ty, wh.ty, seq.ty]


def header(o, out):
    out.append("// GENERATED by test/Loops/gen_nested_scan.py; do not edit.")
    out.append("// Regenerate: python3 test/Loops/gen_nested_scan.py --layers %d --steps %d "
               "--batch %d --width %d --form %s" % (o.layers, o.steps, o.batch, o.width, o.form))
    out.append("// A %d-layer tanh RNN, T = %d, batch %d, width %d, %s." % (
        o.layers, o.steps, o.batch, o.width,
        "as nested loops: an outer scan over layers whose body is the time scan"
        if o.form == "nested" else "unrolled straight-line (the nested form's twin)"))
    out.append("// Results: loss = sum(X_L), dloss/dWx, dloss/dWh, dloss/dX_0.")
    carry = -(-o.batch * o.width * 4 // 64) * 64
    out.append("// Carry: h tensor<%dx%dxf32>, %d B (aligned to 64)" % (o.batch, o.width, carry))
    out.append(MAPS)
    args, results = signature(o)
    out.append("func.func @rnn_layers(%s)" % ", ".join("%s: %s" % (a.ssa, a.ty) for a in args))
    out.append("    -> (tensor<f32> {remat.loss}, %s) {" % ", ".join(results[1:]))
    out.append("  %c0 = arith.constant 0 : index")
    out.append("  %c1 = arith.constant 1 : index")
    out.append("  %zero = arith.constant 0.0 : f32")
    out.append("  %oneF = arith.constant 1.0 : f32")


def loss_lines(seq, ty):
    return ["  %loss_e = tensor.empty() : tensor<f32>",
            "  %loss_z = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>",
            "  %loss = linalg.generic {indexing_maps = [affine_map<(t, i, j) -> (t, i, j)>, "
            "affine_map<(t, i, j) -> ()>], iterator_types = [\"reduction\", \"reduction\", \"reduction\"]}",
            "      ins(%s : %s) outs(%%loss_z : tensor<f32>) {" % (seq, ty),
            "  ^bb0(%in: f32, %out: f32):",
            "    %r = arith.addf %out, %in : f32",
            "    linalg.yield %r : f32",
            "  } -> tensor<f32>"]


def backward_head(seq, ws):
    """The loss's seed gradient, the zero weight gradients and the outer
    backward loop's header over the layers in reverse (%l_b)."""
    return ["  %dtop_e = tensor.empty() : " + seq,
            "  %%dtop = linalg.fill ins(%%oneF : f32) outs(%%dtop_e : %s) -> %s" % (seq, seq),
            "  %gws_e = tensor.empty() : " + ws,
            "  %%gws_z = linalg.fill ins(%%zero : f32) outs(%%gws_e : %s) -> %s" % (ws, ws),
            "  %%back:3 = scf.for %%j = %%c0 to %%cL step %%c1 iter_args(%%dseq = %%dtop, "
            "%%gwx = %%gws_z, %%gwh = %%gws_z) -> (%s, %s, %s) {" % (seq, ws, ws),
            "    %l_b = arith.subi %cLm1, %j : index"]


def nested(o):
    out = []
    header(o, out)
    T, B, W, L = o.steps, o.batch, o.width, o.layers
    seq = "tensor<%dx%dx%dxf32>" % (T, B, W)
    st = "tensor<%dx%dx%dx%dxf32>" % (L, T, B, W)
    r = "tensor<%dx%dxf32>" % (B, W)
    w = "tensor<%dx%dxf32>" % (W, W)
    ws = "tensor<%dx%dx%dxf32>" % (L, W, W)
    out.append("  %%cT = arith.constant %d : index" % T)
    out.append("  %%cL = arith.constant %d : index" % L)
    out.append("  %%cTm1 = arith.constant %d : index" % (T - 1))
    out.append("  %%cLm1 = arith.constant %d : index" % (L - 1))
    for name in ("sx", "sh", "sy"):
        out.append("  %%%s0 = tensor.empty() : %s" % (name, st))
    out.append("  %%outer:4 = scf.for %%l = %%c0 to %%cL step %%c1 iter_args(%%seq = %%x, "
               "%%sx = %%sx0, %%sh = %%sh0, %%sy = %%sy0) -> (%s, %s, %s, %s) {" % (seq, st, st, st))
    out.append("    %%wx_l = tensor.extract_slice %%wx[%%l, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
               % (W, W, ws, w))
    out.append("    %%wh_l = tensor.extract_slice %%wh[%%l, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
               % (W, W, ws, w))
    b = Body(o, out, "")
    h0 = b.zeros("h0", r)
    out.append("    %%hs0 = tensor.empty() : %s" % seq)
    out.append("    %%ys0 = tensor.empty() : %s" % seq)
    out.append("    %%inner:3 = scf.for %%t = %%c0 to %%cT step %%c1 iter_args(%%h = %s, "
               "%%hs = %%hs0, %%ys = %%ys0) -> (%s, %s, %s) {" % (h0, r, seq, seq))
    ib = Body(o, out, "")
    ib.emit("%%x_t = tensor.extract_slice %%seq[%%t, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
            % (B, W, seq, r))
    y = ib.forward("%x_t", "%h", "%wx_l", "%wh_l")
    ib.emit("%%hs1 = tensor.insert_slice %%h into %%hs[%%t, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
            % (B, W, r, seq))
    ib.emit("%%ys1 = tensor.insert_slice %s into %%ys[%%t, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
            % (y, B, W, r, seq))
    ib.emit("scf.yield %s, %%hs1, %%ys1 : %s, %s, %s" % (y, r, seq, seq))
    out.append("    }")
    for name, val in (("sx", "%seq"), ("sh", "%inner#1"), ("sy", "%inner#2")):
        out.append("    %%%s1 = tensor.insert_slice %s into %%%s[%%l, 0, 0, 0] [1, %d, %d, %d] "
                   "[1, 1, 1, 1] : %s into %s" % (name, val, name, T, B, W, seq, st))
    out.append("    scf.yield %%inner#2, %%sx1, %%sh1, %%sy1 : %s, %s, %s, %s" % (seq, st, st, st))
    out.append("  }")
    out += loss_lines("%outer#0", seq)
    # Backward.
    out += backward_head(seq, ws)
    for name in ("sx", "sh", "sy"):
        out.append("    %%%s_l = tensor.extract_slice %%outer#%d[%%l_b, 0, 0, 0] [1, %d, %d, %d] "
                   "[1, 1, 1, 1] : %s to %s" % (name, ("sx", "sh", "sy").index(name) + 1,
                                                 T, B, W, st, seq))
    out.append("    %%wx_b = tensor.extract_slice %%wx[%%l_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
               % (W, W, ws, w))
    out.append("    %%wh_b = tensor.extract_slice %%wh[%%l_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
               % (W, W, ws, w))
    b = Body(o, out, "_b")
    dh0 = b.zeros("dh0", r)
    gx0 = b.zeros("gx0", w)
    out.append("    %%dxs0 = tensor.empty() : %s" % seq)
    out.append("    %%ib:4 = scf.for %%u = %%c0 to %%cT step %%c1 iter_args(%%dh = %s, "
               "%%dxs = %%dxs0, %%gx = %s, %%gh = %s) -> (%s, %s, %s, %s) {"
               % (dh0, gx0, gx0, r, seq, w, w))
    ib = Body(o, out, "_b")
    ib.emit("%t_b = arith.subi %cTm1, %u : index")
    for name, src in (("xr", "%sx_l"), ("hr", "%sh_l"), ("yr", "%sy_l"), ("dr", "%dseq")):
        ib.emit("%%%s = tensor.extract_slice %s[%%t_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
                % (name, src, B, W, seq, r))
    gxc, ghc, dx, dhn = ib.backward("%dr", "%dh", "%yr", "%xr", "%hr", "%wx_b", "%wh_b")
    gx1 = ib.add("gx1", "%gx", gxc, w)
    gh1 = ib.add("gh1", "%gh", ghc, w)
    ib.emit("%%dxs1 = tensor.insert_slice %s into %%dxs[%%t_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
            % (dx, B, W, r, seq))
    ib.emit("scf.yield %s, %%dxs1, %s, %s : %s, %s, %s, %s" % (dhn, gx1, gh1, r, seq, w, w))
    out.append("    }")
    out.append("    %%gwx1 = tensor.insert_slice %%ib#2 into %%gwx[%%l_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
               % (W, W, w, ws))
    out.append("    %%gwh1 = tensor.insert_slice %%ib#3 into %%gwh[%%l_b, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
               % (W, W, w, ws))
    out.append("    scf.yield %%ib#1, %%gwx1, %%gwh1 : %s, %s, %s" % (seq, ws, ws))
    out.append("  }")
    out.append("  return %%loss, %%back#1, %%back#2, %%back#0 : tensor<f32>, %s, %s, %s" % (ws, ws, seq))
    out.append("}")
    return "\n".join(out) + "\n"


def unrolled(o):
    """The same ops in the same order, straight-line: layer l's step t has
    suffix _l<l>t<t> (forward) and _bl<l>t<t> (backward)."""
    out = []
    header(o, out)
    T, B, W, L = o.steps, o.batch, o.width, o.layers
    seq = "tensor<%dx%dx%dxf32>" % (T, B, W)
    r = "tensor<%dx%dxf32>" % (B, W)
    w = "tensor<%dx%dxf32>" % (W, W)
    ws = "tensor<%dx%dx%dxf32>" % (L, W, W)
    ind = []

    def emit(line):
        out.append("  " + line)

    xs = {}  # (l, t) -> x_t of layer l; ys (l, t) -> y; hs (l, t) -> h_t
    hs, ys = {}, {}
    for t in range(T):
        emit("%%x0_%d = tensor.extract_slice %%x[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
             % (t, t, B, W, seq, r))
        xs[(0, t)] = "%%x0_%d" % t
    wl = {}
    for l in range(L):
        for name in ("wx", "wh"):
            emit("%%%s_%d = tensor.extract_slice %%%s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
                 % (name, l, name, l, W, W, ws, w))
            wl[(name, l)] = "%%%s_%d" % (name, l)
        b = Body(o, out, "_l%d" % l)
        b.emit = emit
        h = b.zeros("h0", r)
        for t in range(T):
            s = Body(o, out, "_l%dt%d" % (l, t))
            s.emit = emit
            hs[(l, t)] = h
            h = s.forward(xs[(l, t)], h, wl[("wx", l)], wl[("wh", l)])
            ys[(l, t)] = h
            xs[(l + 1, t)] = h
    # The last layer's outputs as one tensor, for the loss.
    emit("%%top_e = tensor.empty() : %s" % seq)
    prev = "%top_e"
    for t in range(T):
        emit("%%top_%d = tensor.insert_slice %s into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
             % (t, ys[(L - 1, t)], prev, t, B, W, r, seq))
        prev = "%%top_%d" % t
    out += loss_lines(prev, seq)
    emit("%%dtop_e = tensor.empty() : %s" % seq)
    emit("%%dtop = linalg.fill ins(%%oneF : f32) outs(%%dtop_e : %s) -> %s" % (seq, seq))
    dseq = {}
    for t in range(T):
        emit("%%dtop_%d = tensor.extract_slice %%dtop[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
             % (t, t, B, W, seq, r))
        dseq[t] = "%%dtop_%d" % t
    gws = {}
    for l in reversed(range(L)):
        b = Body(o, out, "_bl%d" % l)
        b.emit = emit
        dh = b.zeros("dh0", r)
        gx = gh = b.zeros("gx0", w)
        ndseq = {}
        for t in reversed(range(T)):
            s = Body(o, out, "_bl%dt%d" % (l, t))
            s.emit = emit
            gxc, ghc, dx, dh = s.backward(dseq[t], dh, ys[(l, t)], xs[(l, t)], hs[(l, t)],
                                          wl[("wx", l)], wl[("wh", l)])
            gx = s.add("gx1", gx, gxc, w)
            gh = s.add("gh1", gh, ghc, w)
            ndseq[t] = dx
        dseq = ndseq
        gws[l] = (gx, gh)
    for k, name in enumerate(("gwx", "gwh")):
        emit("%%%s_e = tensor.empty() : %s" % (name, ws))
        prev = "%%%s_e" % name
        for l in range(L):
            emit("%%%s_%d = tensor.insert_slice %s into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
                 % (name, l, gws[l][k], prev, l, W, W, w, ws))
            prev = "%%%s_%d" % (name, l)
    emit("%%dx_e = tensor.empty() : %s" % seq)
    prev = "%dx_e"
    for t in range(T):
        emit("%%dxo_%d = tensor.insert_slice %s into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
             % (t, dseq[t], prev, t, B, W, r, seq))
        prev = "%%dxo_%d" % t
    emit("return %%loss, %%gwx_%d, %%gwh_%d, %s : tensor<f32>, %s, %s, %s"
         % (L - 1, L - 1, prev, ws, ws, seq))
    out.append("}")
    del ind
    return "\n".join(out) + "\n"


def harness(o):
    args, results = signature(o)
    inits = [Init("uniform", seed=arg_seed(k), scale=s)
             for k, s in enumerate((1.0, 0.25, 0.25))]
    lines = ["// GENERATED by test/Loops/gen_nested_scan.py; do not edit.",
             "// Harness of @rnn_layers (--layers %d --steps %d --batch %d --width %d)."
             % (o.layers, o.steps, o.batch, o.width)]
    return "\n".join(lines + main_lines("rnn_layers", args, inits, results)) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--steps", "-T", type=int, default=16)
    ap.add_argument("--batch", "-B", type=int, default=8)
    ap.add_argument("--width", "-W", type=int, default=32)
    ap.add_argument("--form", choices=["nested", "unrolled"], default="nested")
    ap.add_argument("--harness", action="store_true")
    ap.add_argument("-o", "--output")
    o = ap.parse_args()
    text = harness(o) if o.harness else (nested(o) if o.form == "nested" else unrolled(o))
    if o.output:
        with open(o.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
