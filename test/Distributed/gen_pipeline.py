#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generates a GPipe pipeline-parallel training step and its single twin.

Issue 50's GPipe form, as JAX / MaxText write it under shard_map, for P
stages and M micro-batches (Inputs/gpipe_p2.mlir is the hand-written P = 2,
M = 4 case; this writes the same program for any P and M). Per rank of a
grid of P devices along one axis, the stage: stage s holds layer s of the
stacked weights [P, D, D] (its slice, w: [1, D, D]); the layer is
y = tanh(h W). M micro-batches of R x D (x, replicated; stage 0 reads them)
run forward in T = M + P - 1 iterations: every stage applies its layer to
the micro-batch it holds and shard.shift passes the result to the next
stage (offset 1); the iterations where stage s holds no micro-batch (i - s
outside 0 .. M-1, the bubble) compute on what they hold and are masked:
every stage runs every shift (a shift under control flow on the stage is
refused by -remat-lower-collectives). The stage's inputs and outputs of
every iteration are stashed [T, R, D] for the backward, which runs the
iterations in reverse, shifting the input gradients back (offset -1). The
last stage computes the loss, sum((y - t)^2) / (M R D) against t, and the
output gradients; an all_reduce gives every stage the loss.
Results: the loss and the stage's weight gradient [1, D, D].

1F1B (--pipeline 1f1b; issue 50 item 1b), one SPMD program for every rank
in lock-step like the GPipe form: one loop of T = M + 2(P-1) iterations;
iteration k has a forward slot (stage s runs micro-batch f = k - s, masked
outside 0 .. M-1, then shard.shift offset 1) and a backward slot (stage s
runs the backward of micro-batch b = k + s - 2(P-1), masked outside
0 .. M-1, then shard.shift offset -1). The last stage's b is the f it just
ran forward: it takes the loss gradient of it in the same iteration. A
gradient shifted back at the end of iteration k is used by the previous
stage in iteration k + 1, so stage s runs the backward of micro-batch j at
iteration j + 2(P-1) - s and holds min(2(P-s)-1, M) micro-batches in
flight when it writes micro-batch f (f - b = 2(P-1-s), b read after the
write). The stash is a ring of K = min(2P-1, M) slots (micro-batch j in
slot j mod K, zero-filled) for the stage input and each layer's output,
K (R D) floats each, against GPipe's M + P - 1: the same K on every
stage, the ring being sized by stage 0 (one program for every rank). A
masked forward slot writes back what the slot holds (a micro-batch still in
flight may live there). The stage index enters through arithmetic and
masks only (arith.select in the bodies): no scf.if, every rank runs every
shift. --layers-per-stage L: stage s holds layers s L .. s L + L - 1 of
the stacked weights [P L, D, D] (its slice w: [L, D, D]), each
y = tanh(h W): the stash keeps L + 1 tensors per micro-batch. --stash
input keeps the stage input only and the backward slot runs the stage's
layers again on it (what a planner recomputing inside the loop would
write by hand: 1 ring instead of L + 1, L more matmuls per iteration).

--data N (both schedules; issue 50 item 1c): a grid [N, P], data-parallel
axis 0 beside the stage axis 1 (rank r = d P + s). Data row d runs
micro-batches d M/N .. (d+1) M/N - 1 (x, t: [M/N, R, D]) through its
pipeline; the shifts run along axis 1; the loss is all_reduced over both
axes, the stage's weight gradient over axis 0 (sum); the loss's scale is
the whole step's 1 / (M R D), so the sums are the twin's.

The single twin (--single): all P L layers on one device, the micro-batches
one after the other (forward through the layers, then backward); results
the loss and the stacked weight gradient [P L, D, D], of which stage s
returns slice s (compare_stages.py checks every rank against it; with
--data N, compare_stages.py ... P N).

The harnesses build x, t [M, R, D] and the stacked weights [P, D, D] with
the hand-written harnesses' formulas (Inputs/gpipe_p2*.harness.mlir: the
same numbers at P = 2, M = 4); the pipeline's gives stage r slice r.

Usage:
  gen_pipeline.py [--pipeline gpipe|1f1b] [--stages P] [--microbatches M]
      [--rows R] [--width D] [--layers-per-stage L] [--data N] [--single]
      [-o MODEL.mlir]
    -o also writes MODEL.harness.mlir; without -o the model goes to stdout
    (--harness: the harness instead). Standard library only; the indexing
    maps and the output are test/Support/mlir_text.py's (imported by path).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "test", "Support")]
sys.dont_write_bytecode = True  # keep the source tree clean
from mlir_text import MAPS, write_output  # noqa: E402
from remat_import_torch.mlir import float_text  # noqa: E402
sys.path.insert(0, HERE)
from async_1f1b import async_onef1b_text  # noqa: E402
from pipeline_layers import tanh_layer_backward  # noqa: E402


def maps_text(names):
    """#alias = map lines: each name is MAPS's key, or "alias=key"."""
    pairs = [n.split("=") if "=" in n else (n, n) for n in names]
    return "".join("#%s = %s\n" % (alias, MAPS[key]) for alias, key in pairs)


class Opts:
    def __init__(self, a):
        self.pipeline = a.pipeline
        self.P, self.M, self.R, self.D = a.stages, a.microbatches, a.rows, a.width
        self.L, self.N = a.layers_per_stage, a.data
        self.stash = a.stash
        self.ring = a.ring
        self.rings = getattr(a, "rings", "separate")
        self.recompute_stages = a.recompute_stages
        self.single = a.single
        if min(self.P, self.M, self.R, self.D, self.L, self.N) < 1:
            sys.exit("gen_pipeline: sizes must be positive")
        if self.P < 2:
            sys.exit("gen_pipeline: --stages must be at least 2")
        if self.M % self.N:
            sys.exit("gen_pipeline: --data must divide --microbatches")
        if self.pipeline == "gpipe" and (self.L != 1 or self.stash != "all" or
                                         self.ring != "stage0"):
            sys.exit("gen_pipeline: --layers-per-stage, --stash and --ring are for "
                     "--pipeline 1f1b")
        if self.pipeline == "1f1b-async" and (self.N != 1 or self.stash != "all" or
                                               self.ring != "stage0"):
            sys.exit("gen_pipeline: --data, --stash and --ring are for --pipeline 1f1b")
        if self.rings == "parts" and (self.pipeline != "1f1b" or self.ring != "stage0"
                                      or self.stash != "all"):
            sys.exit("gen_pipeline: --rings parts is for --pipeline 1f1b with the "
                     "default --ring and --stash")
        if self.recompute_stages is not None and (
                self.pipeline != "1f1b-async" or not 0 <= self.recompute_stages <= self.P):
            sys.exit("gen_pipeline: --recompute-stages is for --pipeline 1f1b-async, "
                     "0 to --stages")
        # The micro-batches of one data-parallel rank; 1F1B's ring of slots.
        self.Ml = self.M // self.N
        self.K = min(2 * self.P - 1, self.Ml)

    def cmdline(self):
        return "--pipeline %s --stages %d --microbatches %d --rows %d --width %d%s%s%s%s%s%s%s" % (
            self.pipeline, self.P, self.M, self.R, self.D,
            " --layers-per-stage %d" % self.L if self.L != 1 else "",
            " --data %d" % self.N if self.N != 1 else "",
            " --stash input" if self.stash != "all" else "",
            " --ring per-stage" if self.ring != "stage0" else "",
            " --rings parts" if self.rings == "parts" else "",
            " --recompute-stages %d" % self.recompute_stages
            if self.recompute_stages is not None else "",
            " --single" if self.single else "")

    def name(self):
        return "%s_p%d_m%d%s%s%s%s%s" % (
            {"gpipe": "gpipe", "1f1b": "f1b", "1f1b-async": "f1ba"}[self.pipeline],
            self.P, self.M,
            "_l%d" % self.L if self.L != 1 else "", "_d%d" % self.N if self.N != 1 else "",
            "_si" if self.stash != "all" and not self.single else "",
            "_rs%d" % self.recompute_stages
            if self.recompute_stages is not None and not self.single else "",
            "_single" if self.single else "")


def header(o, what):
    return ("// GENERATED by test/Distributed/gen_pipeline.py; do not edit.\n"
            "// Regenerate: python3 test/Distributed/gen_pipeline.py %s\n"
            "// %s\n" % (o.cmdline(), what))


def pipeline_text(o):
    P, M, R, D = o.P, o.Ml, o.R, o.D
    g = grid_text(o)
    T = M + P - 1
    act = "tensor<%dx%dxf32>" % (R, D)
    stash = "tensor<%dx%dx%dxf32>" % (T, R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    wt = "tensor<1x%dx%dxf32>" % (D, D)
    w2 = "tensor<%dx%dxf32>" % (D, D)
    inv = float_text(1.0 / (o.M * R * D))
    scale = float_text(2.0 / (o.M * R * D))
    # Index constants, each once.
    consts = {}
    for v in (0, 1, M - 1, M, T, T - 1, P - 1):
        consts.setdefault(v, "%%c%d" % v)
    c = consts
    const_lines = "".join("  %s = arith.constant %d : index\n" % (n, v)
                          for v, n in sorted(consts.items()))
    if o.N == 1:
        what = "GPipe, %d stages, %d micro-batches of %d x %d, %d iterations" % (P, M, R, D, T)
    else:
        what = ("GPipe, %d stages, %d micro-batches of %d x %d over %d data-parallel ranks "
                "(%d each), %d iterations" % (P, o.M, R, D, o.N, M, T))
    if o.N == 1:
        dw_ret = """  %dw = tensor.expand_shape %bwd#1 [[0, 1], [2]] output_shape [1, {D}, {D}] : {w2} into {wt}
""".format(D=D, w2=w2, wt=wt)
    else:
        dw_ret = """  %dw_l = tensor.expand_shape %bwd#1 [[0, 1], [2]] output_shape [1, {D}, {D}] : {w2} into {wt}
  // The data-parallel ranks of the stage sum their gradients.
  %dw = shard.all_reduce %dw_l on @grid grid_axes = [0] reduction = sum : {wt} -> {wt}
""".format(D=D, w2=w2, wt=wt)
    return header(o, what + " (gen_pipeline.py's docstring).") + f"""\
{g["grid"]}
{maps_text(["id=id2", "sc=red2", "tn_a", "tn_b", "tn_o", "nt_a", "nt_b", "nt_o"])}
func.func @{o.name()}(%x: {xs}, %t: {xs},
                    %w: {wt})
    -> (tensor<f32> {{remat.loss}}, {wt}) {{
{const_lines}  %zero = arith.constant 0.0 : f32
  // The stage: this device's coordinate on the stage axis.
  %s = {g["stage"]}
  %first = arith.cmpi eq, %s, {c[0]} : index
  %last = arith.cmpi eq, %s, {c[P - 1]} : index
  %wl = tensor.extract_slice %w[0, 0, 0] [1, {D}, {D}] [1, 1, 1] : {wt} to {w2}
  %state_e = tensor.empty() : {act}
  %state0 = linalg.fill ins(%zero : f32) outs(%state_e : {act}) -> {act}
  %st_in_e = tensor.empty() : {stash}
  %st_out_e = tensor.empty() : {stash}
  %loss_e = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
  // forward: iteration i, stage s on micro-batch i - s
  %fwd:4 = scf.for %i = {c[0]} to {c[T]} step {c[1]}
      iter_args(%state = %state0, %st_in = %st_in_e, %st_out = %st_out_e, %lacc = %loss0)
      -> ({act}, {stash}, {stash}, tensor<f32>) {{
    // Stage 0 reads micro-batch i (the last one again in the bubble), the
    // others what the previous stage shifted to them.
    %mx = arith.minui %i, {c[M - 1]} : index
    %x_i = tensor.extract_slice %x[%mx, 0, 0] [1, {R}, {D}] [1, 1, 1] : {xs} to {act}
    %in_e = tensor.empty() : {act}
    %in = linalg.generic {{indexing_maps = [#id, #id, #sc, #id], iterator_types = ["parallel", "parallel"]}}
        ins(%x_i, %state, %first : {act}, {act}, i1) outs(%in_e : {act}) {{
    ^bb0(%a: f32, %b: f32, %f: i1, %out: f32):
      %r = arith.select %f, %a, %b : f32
      linalg.yield %r : f32
    }} -> {act}
    %h_e = tensor.empty() : {act}
    %h_z = linalg.fill ins(%zero : f32) outs(%h_e : {act}) -> {act}
    %h = linalg.matmul ins(%in, %wl : {act}, {w2}) outs(%h_z : {act}) -> {act}
    %y_e = tensor.empty() : {act}
    %y = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
        ins(%h : {act}) outs(%y_e : {act}) {{
    ^bb0(%a: f32, %out: f32):
      %r = math.tanh %a : f32
      linalg.yield %r : f32
    }} -> {act}
    %st_in_n = tensor.insert_slice %in into %st_in[%i, 0, 0] [1, {R}, {D}] [1, 1, 1] : {act} into {stash}
    %st_out_n = tensor.insert_slice %y into %st_out[%i, 0, 0] [1, {R}, {D}] [1, 1, 1] : {act} into {stash}
    // The last stage finishes micro-batch i - {P - 1} (none before: masked).
    %gel = arith.cmpi uge, %i, {c[P - 1]} : index
    %valid = arith.andi %last, %gel : i1
    %iml = arith.subi %i, {c[P - 1]} : index
    %mt = arith.select %gel, %iml, {c[0]} : index
    %t_i = tensor.extract_slice %t[%mt, 0, 0] [1, {R}, {D}] [1, 1, 1] : {xs} to {act}
    %lacc_n = linalg.generic {{indexing_maps = [#id, #id, #sc, #sc], iterator_types = ["reduction", "reduction"]}}
        ins(%y, %t_i, %valid : {act}, {act}, i1) outs(%lacc : tensor<f32>) {{
    ^bb0(%a: f32, %b: f32, %v: i1, %out: f32):
      %d = arith.subf %a, %b : f32
      %sq = arith.mulf %d, %d : f32
      %sum = arith.addf %out, %sq : f32
      %r = arith.select %v, %sum, %out : f32
      linalg.yield %r : f32
    }} -> tensor<f32>
    // To the next stage; stage 0 receives zeros (no previous stage).
    %next = shard.shift %y on @grid {g["shift"]} offset = 1 : {act} -> {act}
    scf.yield %next, %st_in_n, %st_out_n, %lacc_n : {act}, {stash}, {stash}, tensor<f32>
  }}
  %loss_l_e = tensor.empty() : tensor<f32>
  %loss_l = linalg.generic {{indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}}
      ins(%fwd#3 : tensor<f32>) outs(%loss_l_e : tensor<f32>) {{
  ^bb0(%a: f32, %out: f32):
    %inv = arith.constant {inv} : f32
    %r = arith.mulf %a, %inv : f32
    linalg.yield %r : f32
  }} -> tensor<f32>
  // Only the last stage's is not zero: the sum gives every stage the loss.
  %loss = shard.all_reduce %loss_l on @grid grid_axes = {g["loss_axes"]} reduction = sum : tensor<f32> -> tensor<f32>
  // backward: iteration k runs forward iteration i = {T - 1} - k in reverse
  %g_e = tensor.empty() : {act}
  %g0 = linalg.fill ins(%zero : f32) outs(%g_e : {act}) -> {act}
  %dw_e = tensor.empty() : {w2}
  %dw0 = linalg.fill ins(%zero : f32) outs(%dw_e : {w2}) -> {w2}
  %bwd:2 = scf.for %k = {c[0]} to {c[T]} step {c[1]} iter_args(%g = %g0, %dw = %dw0)
      -> ({act}, {w2}) {{
    %i = arith.subi {c[T - 1]}, %k : index
    %in_i = tensor.extract_slice %fwd#1[%i, 0, 0] [1, {R}, {D}] [1, 1, 1] : {stash} to {act}
    %y_i = tensor.extract_slice %fwd#2[%i, 0, 0] [1, {R}, {D}] [1, 1, 1] : {stash} to {act}
    %gel = arith.cmpi uge, %i, {c[P - 1]} : index
    %iml = arith.subi %i, {c[P - 1]} : index
    %mt = arith.select %gel, %iml, {c[0]} : index
    %t_i = tensor.extract_slice %t[%mt, 0, 0] [1, {R}, {D}] [1, 1, 1] : {xs} to {act}
    // Stage s holds micro-batch i - s when 0 <= i - s < M; else masked.
    %ges = arith.cmpi uge, %i, %s : index
    %ims = arith.subi %i, %s : index
    %ltm = arith.cmpi ult, %ims, {c[M]} : index
    %work = arith.andi %ges, %ltm : i1
    // The output gradient: the loss's on the last stage, else what the
    // next stage shifted back; through tanh.
    %dp_e = tensor.empty() : {act}
    %dpre = linalg.generic {{indexing_maps = [#id, #id, #id, #sc, #sc, #id], iterator_types = ["parallel", "parallel"]}}
        ins(%y_i, %t_i, %g, %last, %work : {act}, {act}, {act}, i1, i1) outs(%dp_e : {act}) {{
    ^bb0(%yv: f32, %tv: f32, %gv: f32, %l: i1, %wk: i1, %out: f32):
      %scale = arith.constant {scale} : f32
      %one = arith.constant 1.0 : f32
      %d = arith.subf %yv, %tv : f32
      %dl = arith.mulf %d, %scale : f32
      %go = arith.select %l, %dl, %gv : f32
      %y2 = arith.mulf %yv, %yv : f32
      %dt = arith.subf %one, %y2 : f32
      %dp = arith.mulf %go, %dt : f32
      %r = arith.select %wk, %dp, %zero : f32
      linalg.yield %r : f32
    }} -> {act}
    %dw_n = linalg.generic {{indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = ["parallel", "parallel", "reduction"]}}
        ins(%in_i, %dpre : {act}, {act}) outs(%dw : {w2}) {{
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    }} -> {w2}
    %gx_e = tensor.empty() : {act}
    %gx_z = linalg.fill ins(%zero : f32) outs(%gx_e : {act}) -> {act}
    %gx = linalg.generic {{indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = ["parallel", "parallel", "reduction"]}}
        ins(%dpre, %wl : {act}, {w2}) outs(%gx_z : {act}) {{
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %out, %m : f32
      linalg.yield %r : f32
    }} -> {act}
    // Back to the previous stage; the last stage receives zeros.
    %gnext = shard.shift %gx on @grid {g["shift"]} offset = -1 : {act} -> {act}
    scf.yield %gnext, %dw_n : {act}, {w2}
  }}
{dw_ret}  return %loss, %dw : tensor<f32>, {wt}
}}
"""


def grid_text(o):
    """The grid, the stage index and the shift/collective axes of the form."""
    if o.N == 1:
        return dict(grid="shard.grid @grid(shape = %d)" % o.P,
                    stage="shard.process_linear_index on @grid : index",
                    shift="grid_axes = [0] shift_axis = 0", loss_axes="[0]")
    return dict(grid="shard.grid @grid(shape = %dx%d)" % (o.N, o.P),
                stage="shard.process_multi_index on @grid axes = [1] : index",
                shift="grid_axes = [1] shift_axis = 1", loss_axes="[0, 1]")


def onef1b_text(o):
    """The 1F1B step (gen_pipeline.py's docstring, "1F1B")."""
    P, M, R, D, L = o.P, o.Ml, o.R, o.D, o.L
    K = o.K
    T = M + 2 * (P - 1)
    # The rings: the stage input's, and (--stash all) each layer's output's.
    NR = L + 1 if o.stash == "all" else 1
    g = grid_text(o)
    act = "tensor<%dx%dxf32>" % (R, D)
    per_stage = o.ring == "per-stage"
    ring = "tensor<%sx%dx%dxf32>" % ("?" if per_stage else K, R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    wt = "tensor<%dx%dx%dxf32>" % (L, D, D)
    w2 = "tensor<%dx%dxf32>" % (D, D)
    inv = float_text(1.0 / (o.M * R * D))
    scale = float_text(2.0 / (o.M * R * D))
    consts = {}
    for v in (0, 1, M - 1, M, T, K, P - 1, 2 * (P - 1), 2 * P - 1):
        consts.setdefault(v, "%%c%d" % v)
    c = consts
    const_lines = "".join("  %s = arith.constant %d : index\n" % (n, v)
                          for v, n in sorted(consts.items()))
    B = []
    e = B.append
    for j in range(L):
        e("  %%w%d = tensor.extract_slice %%w[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
          % (j, j, D, D, wt, w2))
    # ring a0: the stage input, a{j}: the output of layer j (1..L)
    # Zero-filled: a masked backward slot reads a slot no forward wrote yet
    # (its gradient is zero; uninitialized memory could hold a NaN).
    if per_stage:
        # Stage s holds min(2(P-s)-1, M) micro-batches in flight: its rows.
        e("  %srows2 = arith.addi %s, %s : index")
        e("  %%srows = arith.subi %s, %%srows2 : index" % c[2 * P - 1])
        e("  %%rows = arith.minui %%srows, %s : index" % c[M])
    packed = o.rings == "parts"
    ringp = "tensor<%dx%dx%dx%dxf32>" % (K, NR, R, D)
    if packed:
        e("  %%ringp_x = tensor.empty() : %s" % ringp)
        e("  %%ringp_e = linalg.fill ins(%%zero : f32) outs(%%ringp_x : %s) -> %s"
          % (ringp, ringp))
    for j in range(0 if packed else NR):
        e("  %%ring%d_x = tensor.empty(%s) : %s" % (j, "%rows" if per_stage else "", ring))
        e("  %%ring%d_e = linalg.fill ins(%%zero : f32) outs(%%ring%d_x : %s) -> %s"
          % (j, j, ring, ring))
    for j in range(L):
        e("  %%dw%d_e = tensor.empty() : %s" % (j, w2))
        e("  %%dw%d_0 = linalg.fill ins(%%zero : f32) outs(%%dw%d_e : %s) -> %s" % (j, j, w2, w2))
    pre = "\n".join(B) + "\n"
    iters = ["%state = %zact", "%g = %zact", "%lacc = %loss0"]
    if packed:
        iters += ["%ringp = %ringp_e"]
    else:
        iters += ["%%ring%d = %%ring%d_e" % (j, j) for j in range(NR)]
    iters += ["%%dw%d = %%dw%d_0" % (j, j) for j in range(L)]
    itys = [act, act, "tensor<f32>"] + ([ringp] if packed else [ring] * NR) + [w2] * L
    n_it = len(iters)
    # The loop body.
    B = []
    e = B.append
    e("    // Forward slot: stage s runs micro-batch f = k - s (valid: 0 <= f < %d)." % M)
    e("    %fge = arith.cmpi uge, %k, %s : index")
    e("    %fm = arith.subi %k, %s : index")
    e("    %flt = arith.cmpi ult, %fm, " + c[M] + " : index")
    e("    %fvalid = arith.andi %fge, %flt : i1")
    e("    %fc = arith.select %fvalid, %fm, " + c[0] + " : index")
    e("    %fslot = arith.remui %fc, " + ("%rows" if per_stage else c[K]) + " : index")
    e("    %%x_f = tensor.extract_slice %%x[%%fc, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("    %in_e = tensor.empty() : " + act)
    e("    %a0 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = [\"parallel\", \"parallel\"]}")
    e("        ins(%%x_f, %%state, %%first : %s, %s, i1) outs(%%in_e : %s) {" % (act, act, act))
    e("    ^bb0(%a: f32, %b: f32, %fs: i1, %out: f32):")
    e("      %r = arith.select %fs, %a, %b : f32")
    e("      linalg.yield %r : f32")
    e("    } -> " + act)
    for j in range(1, L + 1):
        e("    %%h%d_e = tensor.empty() : %s" % (j, act))
        e("    %%h%d_z = linalg.fill ins(%%zero : f32) outs(%%h%d_e : %s) -> %s" % (j, j, act, act))
        e("    %%h%d = linalg.matmul ins(%%a%d, %%w%d : %s, %s) outs(%%h%d_z : %s) -> %s"
          % (j, j - 1, j - 1, act, w2, j, act, act))
        e("    %%a%d_e = tensor.empty() : %s" % (j, act))
        e("    %%a%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}" % j)
        e("        ins(%%h%d : %s) outs(%%a%d_e : %s) {" % (j, act, j, act))
        e("    ^bb0(%a: f32, %out: f32):")
        e("      %r = math.tanh %a : f32")
        e("      linalg.yield %r : f32")
        e("    } -> " + act)
    e("    // Stash the stage input%s in slot f mod %d;"
      % (" and every layer's output" if NR > 1 else "", K))
    e("    // a masked slot keeps what it holds (a micro-batch still in flight).")
    for j in range(NR):
        # packed: ring j is part j, read and written between the writes of
        # the parts before and after it.
        before = "%ringp" if j == 0 else "%%ringp_n%d" % (j - 1)
        if packed:
            e("    %%o%d = tensor.extract_slice %s[%%fslot, %d, 0, 0] [1, 1, %d, %d] [1, 1, 1, 1] : %s to %s"
              % (j, before, j, R, D, ringp, act))
        else:
            e("    %%o%d = tensor.extract_slice %%ring%d[%%fslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
              % (j, j, R, D, ring, act))
        e("    %%k%d_e = tensor.empty() : %s" % (j, act))
        e("    %%k%d = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = [\"parallel\", \"parallel\"]}" % j)
        e("        ins(%%a%d, %%o%d, %%fvalid : %s, %s, i1) outs(%%k%d_e : %s) {" % (j, j, act, act, j, act))
        e("    ^bb0(%a: f32, %b: f32, %v: i1, %out: f32):")
        e("      %r = arith.select %v, %a, %b : f32")
        e("      linalg.yield %r : f32")
        e("    } -> " + act)
        if packed:
            e("    %%ringp_n%d = tensor.insert_slice %%k%d into %s[%%fslot, %d, 0, 0] [1, 1, %d, %d] [1, 1, 1, 1] : %s into %s"
              % (j, j, before, j, R, D, act, ringp))
        else:
            e("    %%ring%d_n = tensor.insert_slice %%k%d into %%ring%d[%%fslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
              % (j, j, j, R, D, act, ring))
    e("    // The last stage's loss, of micro-batch f.")
    e("    %lvalid = arith.andi %last, %fvalid : i1")
    e("    %%t_f = tensor.extract_slice %%t[%%fc, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("    %lacc_n = linalg.generic {indexing_maps = [#id, #id, #sc, #sc], iterator_types = [\"reduction\", \"reduction\"]}")
    e("        ins(%%a%d, %%t_f, %%lvalid : %s, %s, i1) outs(%%lacc : tensor<f32>) {" % (L, act, act))
    e("    ^bb0(%a: f32, %b: f32, %v: i1, %out: f32):")
    e("      %d = arith.subf %a, %b : f32")
    e("      %sq = arith.mulf %d, %d : f32")
    e("      %sum = arith.addf %out, %sq : f32")
    e("      %r = arith.select %v, %sum, %out : f32")
    e("      linalg.yield %r : f32")
    e("    } -> tensor<f32>")
    e("    // To the next stage; stage 0 receives zeros.")
    e("    %%next = shard.shift %%a%d on @grid %s offset = 1 : %s -> %s" % (L, g["shift"], act, act))
    e("    // Backward slot: stage s runs micro-batch b = k + s - %d (valid: 0 <= b < %d);" % (2 * (P - 1), M))
    e("    // on the last stage b = f, whose forward just ran.")
    e("    %ks = arith.addi %k, %s : index")
    e("    %bge = arith.cmpi uge, %ks, " + c[2 * (P - 1)] + " : index")
    e("    %bm = arith.subi %ks, " + c[2 * (P - 1)] + " : index")
    e("    %blt = arith.cmpi ult, %bm, " + c[M] + " : index")
    e("    %bvalid = arith.andi %bge, %blt : i1")
    e("    %bc = arith.select %bvalid, %bm, " + c[0] + " : index")
    e("    %bslot = arith.remui %bc, " + ("%rows" if per_stage else c[K]) + " : index")
    for j in range(NR):
        if packed:
            e("    %%s%d = tensor.extract_slice %%ringp_n%d[%%bslot, %d, 0, 0] [1, 1, %d, %d] [1, 1, 1, 1] : %s to %s"
              % (j, NR - 1, j, R, D, ringp, act))
        else:
            e("    %%s%d = tensor.extract_slice %%ring%d_n[%%bslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
              % (j, j, R, D, ring, act))
    if NR == 1:
        e("    // --stash input: the layers' outputs again, from the stashed input.")
    for j in range(NR, L + 1):
        e("    %%rh%d_e = tensor.empty() : %s" % (j, act))
        e("    %%rh%d_z = linalg.fill ins(%%zero : f32) outs(%%rh%d_e : %s) -> %s" % (j, j, act, act))
        e("    %%rh%d = linalg.matmul ins(%%s%d, %%w%d : %s, %s) outs(%%rh%d_z : %s) -> %s"
          % (j, j - 1, j - 1, act, w2, j, act, act))
        e("    %%s%d_e = tensor.empty() : %s" % (j, act))
        e("    %%s%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}" % j)
        e("        ins(%%rh%d : %s) outs(%%s%d_e : %s) {" % (j, act, j, act))
        e("    ^bb0(%a: f32, %out: f32):")
        e("      %r = math.tanh %a : f32")
        e("      linalg.yield %r : f32")
        e("    } -> " + act)
    e("    %%t_b = tensor.extract_slice %%t[%%bc, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("    // The output gradient: the loss's on the last stage, else what the next")
    e("    // stage shifted back; through tanh; zero when b is not valid.")
    e("    %d_e = tensor.empty() : " + act)
    e("    %%d%d = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #sc, #id], iterator_types = [\"parallel\", \"parallel\"]}" % L)
    e("        ins(%%s%d, %%t_b, %%g, %%last, %%bvalid : %s, %s, %s, i1, i1) outs(%%d_e : %s) {" % (L, act, act, act, act))
    e("    ^bb0(%yv: f32, %tv: f32, %gv: f32, %l: i1, %wk: i1, %out: f32):")
    e("      %%scale = arith.constant %s : f32" % scale)
    e("      %one = arith.constant 1.0 : f32")
    e("      %dd = arith.subf %yv, %tv : f32")
    e("      %dl = arith.mulf %dd, %scale : f32")
    e("      %go = arith.select %l, %dl, %gv : f32")
    e("      %y2 = arith.mulf %yv, %yv : f32")
    e("      %dt = arith.subf %one, %y2 : f32")
    e("      %dp = arith.mulf %go, %dt : f32")
    e("      %r = arith.select %wk, %dp, %zero : f32")
    e("      linalg.yield %r : f32")
    e("    } -> " + act)
    for j in range(L, 0, -1):
        if j < L:
            tanh_layer_backward(e, "    ", j, act, w2, grad="gx%d" % j, empty="dd%d_e" % j)
        else:
            tanh_layer_backward(e, "    ", j, act, w2)
    e("    // Back to the previous stage; the last stage receives zeros.")
    e("    %%gnext = shard.shift %%gx0 on @grid %s offset = -1 : %s -> %s" % (g["shift"], act, act))
    rings_out = ["%%ringp_n%d" % (NR - 1)] if packed else ["%%ring%d_n" % j for j in range(NR)]
    yields = ["%next", "%gnext", "%lacc_n"] + rings_out + \
        ["%%dw%d_n" % j for j in range(L)]
    e("    scf.yield %s : %s" % (", ".join(yields), ", ".join(itys)))
    body = "\n".join(B) + "\n"
    # After the loop: the loss, the gradients stacked [L, D, D].
    A = []
    e = A.append
    e("  %loss_l_e = tensor.empty() : tensor<f32>")
    e("  %loss_l = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}")
    e("      ins(%it#2 : tensor<f32>) outs(%loss_l_e : tensor<f32>) {")
    e("  ^bb0(%a: f32, %out: f32):")
    e("    %%inv = arith.constant %s : f32" % inv)
    e("    %r = arith.mulf %a, %inv : f32")
    e("    linalg.yield %r : f32")
    e("  } -> tensor<f32>")
    e("  // Only the last stage's is not zero: the sum gives every rank the loss.")
    e("  %%loss = shard.all_reduce %%loss_l on @grid grid_axes = %s reduction = sum : tensor<f32> -> tensor<f32>"
      % g["loss_axes"])
    prev = "%dws_e"
    e("  %%dws_e = tensor.empty() : %s" % wt)
    for j in range(L):
        nxt = "%%dws%d" % j
        e("  %s = tensor.insert_slice %%it#%d into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
          % (nxt, 3 + len(rings_out) + j, prev, j, D, D, w2, wt))
        prev = nxt
    if o.N > 1:
        e("  // The data-parallel ranks of the stage sum their gradients.")
        e("  %%dw = shard.all_reduce %s on @grid grid_axes = [0] reduction = sum : %s -> %s"
          % (prev, wt, wt))
        prev = "%dw"
    e("  return %%loss, %s : tensor<f32>, %s" % (prev, wt))
    after = "\n".join(A) + "\n}\n"
    what = ("1F1B, %d stages x %d layers, %d micro-batches of %d x %d%s, %d iterations, "
            "a ring of %d slots%s (gen_pipeline.py's docstring)."
            % (P, L, o.M, R, D, "" if o.N == 1 else " over %d data-parallel ranks (%d each)" % (o.N, M),
               T, K, "" if NR > 1 else ", the stage input stashed only"))
    return header(o, what) + f"""\
{g["grid"]}
{maps_text(["id=id2", "sc=red2", "tn_a", "tn_b", "tn_o", "nt_a", "nt_b", "nt_o"])}
func.func @{o.name()}(%x: {xs}, %t: {xs},
                    %w: {wt})
    -> (tensor<f32> {{remat.loss}}, {wt}) {{
{const_lines}  %zero = arith.constant 0.0 : f32
  // The stage: this device's coordinate on the stage axis.
  %s = {g["stage"]}
  %first = arith.cmpi eq, %s, {c[0]} : index
  %last = arith.cmpi eq, %s, {c[P - 1]} : index
  %zact_e = tensor.empty() : {act}
  %zact = linalg.fill ins(%zero : f32) outs(%zact_e : {act}) -> {act}
  %loss_e = tensor.empty() : tensor<f32>
  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>
{pre}  // Iteration k: a forward slot, then a backward slot.
  %it:{n_it} = scf.for %k = {c[0]} to {c[T]} step {c[1]}
      iter_args({", ".join(iters)})
      -> ({", ".join(itys)}) {{
{body}  }}
{after}"""


def single_text(o):
    # All P L layers on one device (P below counts layers).
    P, M, R, D = o.P * o.L, o.M, o.R, o.D
    act = "tensor<%dx%dxf32>" % (R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    w2 = "tensor<%dx%dxf32>" % (D, D)
    ws = "tensor<%dx%dx%dxf32>" % (P, D, D)
    inv = float_text(1.0 / (M * R * D))
    scale = float_text(2.0 / (M * R * D))
    L = []
    e = L.append
    e("  %c0 = arith.constant 0 : index")
    e("  %c1 = arith.constant 1 : index")
    e("  %%cM = arith.constant %d : index" % M)
    e("  %zero = arith.constant 0.0 : f32")
    for l in range(P):
        e("  %%w%d = tensor.extract_slice %%w[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
          % (l, l, D, D, ws, w2))
    e("  %loss_e = tensor.empty() : tensor<f32>")
    e("  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>")
    for l in range(P):
        e("  %%dw_e%d = tensor.empty() : %s" % (l, w2))
        e("  %%dw%d_i = linalg.fill ins(%%zero : f32) outs(%%dw_e%d : %s) -> %s" % (l, l, w2, w2))
    iters = ", ".join(["%lacc = %loss0"] + ["%%dw%d = %%dw%d_i" % (l, l) for l in range(P)])
    e("  %%acc:%d = scf.for %%m = %%c0 to %%cM step %%c1 iter_args(%s)" % (P + 1, iters))
    e("      -> (%s) {" % ", ".join(["tensor<f32>"] + [w2] * P))
    e("    %%x_m = tensor.extract_slice %%x[%%m, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
      % (R, D, xs, act))
    e("    %%t_m = tensor.extract_slice %%t[%%m, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
      % (R, D, xs, act))
    e("    // forward: y_l = tanh(y_{l-1} W_l), y_{-1} = x")
    prev = "%x_m"
    for l in range(P):
        e("    %%h%d_e = tensor.empty() : %s" % (l, act))
        e("    %%h%d_z = linalg.fill ins(%%zero : f32) outs(%%h%d_e : %s) -> %s" % (l, l, act, act))
        e("    %%h%d = linalg.matmul ins(%s, %%w%d : %s, %s) outs(%%h%d_z : %s) -> %s"
          % (l, prev, l, act, w2, l, act, act))
        e("    %%y%d_e = tensor.empty() : %s" % (l, act))
        e("    %%y%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
          "[\"parallel\", \"parallel\"]}" % l)
        e("        ins(%%h%d : %s) outs(%%y%d_e : %s) {" % (l, act, l, act))
        e("    ^bb0(%a: f32, %out: f32):")
        e("      %r = math.tanh %a : f32")
        e("      linalg.yield %r : f32")
        e("    } -> %s" % act)
        prev = "%%y%d" % l
    last = P - 1
    e("    %lacc_n = linalg.generic {indexing_maps = [#id, #id, #red], iterator_types = "
      "[\"reduction\", \"reduction\"]}")
    e("        ins(%%y%d, %%t_m : %s, %s) outs(%%lacc : tensor<f32>) {" % (last, act, act))
    e("    ^bb0(%a: f32, %b: f32, %out: f32):")
    e("      %d = arith.subf %a, %b : f32")
    e("      %sq = arith.mulf %d, %d : f32")
    e("      %r = arith.addf %out, %sq : f32")
    e("      linalg.yield %r : f32")
    e("    } -> tensor<f32>")
    e("    // backward: g = (y_last - t) * %s, d_l = g_l (1 - y_l^2), "
      "dW_l += y_{l-1}^T d_l, g_{l-1} = d_l W_l^T" % scale)
    e("    %%g%d_e = tensor.empty() : %s" % (last, act))
    e("    %%g%d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = "
      "[\"parallel\", \"parallel\"]}" % last)
    e("        ins(%%y%d, %%t_m : %s, %s) outs(%%g%d_e : %s) {" % (last, act, act, last, act))
    e("    ^bb0(%yv: f32, %tv: f32, %out: f32):")
    e("      %%scale = arith.constant %s : f32" % scale)
    e("      %d = arith.subf %yv, %tv : f32")
    e("      %r = arith.mulf %d, %scale : f32")
    e("      linalg.yield %r : f32")
    e("    } -> %s" % act)
    new_dw = {}
    for l in reversed(range(P)):
        e("    %%d%d_e = tensor.empty() : %s" % (l, act))
        e("    %%d%d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = "
          "[\"parallel\", \"parallel\"]}" % l)
        e("        ins(%%g%d, %%y%d : %s, %s) outs(%%d%d_e : %s) {" % (l, l, act, act, l, act))
        e("    ^bb0(%gv: f32, %yv: f32, %out: f32):")
        e("      %one = arith.constant 1.0 : f32")
        e("      %y2v = arith.mulf %yv, %yv : f32")
        e("      %dt = arith.subf %one, %y2v : f32")
        e("      %r = arith.mulf %gv, %dt : f32")
        e("      linalg.yield %r : f32")
        e("    } -> %s" % act)
        src = "%x_m" if l == 0 else "%%y%d" % (l - 1)
        e("    %%dw%d_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = "
          "[\"parallel\", \"parallel\", \"reduction\"]}" % l)
        e("        ins(%s, %%d%d : %s, %s) outs(%%dw%d : %s) {" % (src, l, act, act, l, w2))
        e("    ^bb0(%a: f32, %b: f32, %out: f32):")
        e("      %p = arith.mulf %a, %b : f32")
        e("      %r = arith.addf %out, %p : f32")
        e("      linalg.yield %r : f32")
        e("    } -> %s" % w2)
        new_dw[l] = "%%dw%d_n" % l
        if l == 0:
            continue
        e("    %%g%d_e = tensor.empty() : %s" % (l - 1, act))
        e("    %%g%d_z = linalg.fill ins(%%zero : f32) outs(%%g%d_e : %s) -> %s"
          % (l - 1, l - 1, act, act))
        e("    %%g%d = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = "
          "[\"parallel\", \"parallel\", \"reduction\"]}" % (l - 1))
        e("        ins(%%d%d, %%w%d : %s, %s) outs(%%g%d_z : %s) {" % (l, l, act, w2, l - 1, act))
        e("    ^bb0(%a: f32, %b: f32, %out: f32):")
        e("      %p = arith.mulf %a, %b : f32")
        e("      %r = arith.addf %out, %p : f32")
        e("      linalg.yield %r : f32")
        e("    } -> %s" % act)
    e("    scf.yield %s : %s" % (", ".join(["%lacc_n"] + [new_dw[l] for l in range(P)]),
                                 ", ".join(["tensor<f32>"] + [w2] * P)))
    e("  }")
    e("  %loss_o_e = tensor.empty() : tensor<f32>")
    e("  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], "
      "iterator_types = []}")
    e("      ins(%acc#0 : tensor<f32>) outs(%loss_o_e : tensor<f32>) {")
    e("  ^bb0(%a: f32, %out: f32):")
    e("    %%inv = arith.constant %s : f32" % inv)
    e("    %r = arith.mulf %a, %inv : f32")
    e("    linalg.yield %r : f32")
    e("  } -> tensor<f32>")
    prev = "%dw_e"
    e("  %%dw_e = tensor.empty() : %s" % ws)
    for l in range(P):
        nxt = "%dw" if l == P - 1 else "%%dw_s%d" % l
        e("  %s = tensor.insert_slice %%acc#%d into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
          % (nxt, l + 1, prev, l, D, D, w2, ws))
        prev = nxt
    e("  return %%loss, %%dw : tensor<f32>, %s" % ws)
    e("}")
    return header(o, "The single-device twin of the pipeline step of %d layers, %d micro-batches "
                  "of %d x %d." % (P, M, R, D)) + f"""\
{maps_text(["id=id2", "red=red2", "tn_a", "tn_b", "tn_o", "nt_a", "nt_b", "nt_o"])}
func.func @{o.name()}(%x: {xs}, %t: {xs},
                    %w: {ws})
    -> (tensor<f32> {{remat.loss}}, {ws}) {{
""" + "\n".join(L) + "\n"


def fill(name, shape, mul, add, mod, off, scl):
    """A linalg.generic filling `shape` with ((lin * mul + add) mod mod - off) * scl,
    lin the row-major linear index (the hand-written harnesses' values)."""
    ty = "tensor<%sxf32>" % "x".join(map(str, shape))
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    dims = ", ".join("d%d" % d for d in range(len(shape)))
    lin = " + ".join("d%d * %d" % (d, s) for d, s in enumerate(strides))
    idx = "\n".join("    %%i%d = linalg.index %d : index" % (d, d) for d in range(len(shape)))
    its = ", ".join('"parallel"' for _ in shape)
    args = ", ".join("%%i%d" % d for d in range(len(shape)))
    return f"""\
  %{name}_e = tensor.empty() : {ty}
  %{name} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], iterator_types = [{its}]}}
      outs(%{name}_e : {ty}) {{
  ^bb0(%out: f32):
{idx}
    %lin = affine.apply affine_map<({dims}) -> ((({lin}) * {mul} + {add}) mod {mod})>({args})
    %l = arith.index_cast %lin : index to i32
    %f = arith.sitofp %l : i32 to f32
    %off = arith.constant {off} : f32
    %scale = arith.constant {scl} : f32
    %c = arith.subf %f, %off : f32
    %v = arith.mulf %c, %scale : f32
    linalg.yield %v : f32
  }} -> {ty}
"""


def harness_text(o):
    P, M, R, D, L = o.P, o.M, o.R, o.D, o.L
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    ws = "tensor<%dx%dx%dxf32>" % (P * L, D, D)
    wt = "tensor<%dx%dx%dxf32>" % (L, D, D)
    dw = ws if o.single else wt
    text = ("// GENERATED by test/Distributed/gen_pipeline.py; do not edit.\n"
            "// Harness of @%s (%s): x, t [%d, %d, %d] and the stacked weights [%d, %d, %d]\n"
            "// with Inputs/gpipe_p2.harness.mlir's formulas; %s.\n"
            "func.func private @printMemrefF32(tensor<*xf32>)\n\nfunc.func @main() {\n"
            % (o.name(), o.cmdline(), M, R, D, P * L, D, D,
               "prints the loss and the stacked gradient" if o.single else
               "stage r gets slice r of the weights; prints the loss and its weight gradient"))
    text += fill("x", [M, R, D], 7, 3, 11, "5.0", "0.125")
    text += fill("t", [M, R, D], 5, 1, 13, "6.0", "0.1")
    text += fill("w_full", [P * L, D, D], 7, 2, 11, "5.0", "0.04")
    x, xty = "%x", xs
    if o.single:
        w = "%w_full"
        wty = ws
    else:
        if o.N == 1:
            text += "  %r = shard.process_linear_index on @grid : index\n"
        else:
            # Grid [N, P]: data rank d takes micro-batches d Ml .. d Ml + Ml - 1.
            xl = "tensor<%dx%dx%dxf32>" % (o.Ml, R, D)
            text += "  %d = shard.process_multi_index on @grid axes = [0] : index\n"
            text += "  %r = shard.process_multi_index on @grid axes = [1] : index\n"
            text += "  %%m0 = affine.apply affine_map<(d) -> (d * %d)>(%%d)\n" % o.Ml
            for v in ("x", "t"):
                text += ("  %%%s_view = tensor.extract_slice %%%s[%%m0, 0, 0] [%d, %d, %d] [1, 1, 1] "
                         ": %s to %s\n" % (v, v, o.Ml, R, D, xs, xl))
                text += "  %%%s_own = tensor.empty() : %s\n" % (v, xl)
                text += ("  %%%s_l = linalg.copy ins(%%%s_view : %s) outs(%%%s_own : %s) -> %s\n"
                         % (v, v, xl, v, xl, xl))
            x, xty = "%x_l", xl
        # The slice copied into a buffer of its own (as gen_sharded.py's
        # harnesses do): a view would keep the whole stack alive through
        # the call, in the measured window but not in the step's peak.
        if L == 1:
            text += ("  %%w_view = tensor.extract_slice %%w_full[%%r, 0, 0] [1, %d, %d] [1, 1, 1] "
                     ": %s to %s\n" % (D, D, ws, wt))
        else:
            text += "  %%rl = affine.apply affine_map<(r) -> (r * %d)>(%%r)\n" % L
            text += ("  %%w_view = tensor.extract_slice %%w_full[%%rl, 0, 0] [%d, %d, %d] [1, 1, 1] "
                     ": %s to %s\n" % (L, D, D, ws, wt))
        text += "  %%w_own = tensor.empty() : %s\n" % wt
        text += ("  %%w = linalg.copy ins(%%w_view : %s) outs(%%w_own : %s) -> %s\n"
                 % (wt, wt, wt))
        w, wty = "%w", wt
    t = "%t_l" if x == "%x_l" else "%t"
    text += ("  %%loss, %%dw = func.call @%s(%s, %s, %s) : (%s, %s, %s) -> (tensor<f32>, %s)\n"
             % (o.name(), x, t, w, xty, xty, wty, dw))
    text += "  %loss_u = tensor.cast %loss : tensor<f32> to tensor<*xf32>\n"
    text += "  func.call @printMemrefF32(%loss_u) : (tensor<*xf32>) -> ()\n"
    text += "  %%dw_u = tensor.cast %%dw : %s to tensor<*xf32>\n" % dw
    text += "  func.call @printMemrefF32(%dw_u) : (tensor<*xf32>) -> ()\n"
    return text + "  return\n}\n"


def drawn_variant(seed):
    """The respelling --variant SEED draws (None: as written by default)."""
    if seed is None:
        return None
    import random
    rng = random.Random(seed)
    return dict(swap=rng.random() < 0.5, slot=rng.choice(["remui", "affine", "index"]),
                partner=rng.choice(["arith", "affine", "index"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pipeline", choices=["gpipe", "1f1b", "1f1b-async"], default="gpipe",
                    help="the schedule (default gpipe); 1f1b-async: every stage its own "
                    "slots, point-to-point send/recv (async_1f1b.py)")
    ap.add_argument("--stages", "-P", type=int, default=2, help="P, the stages (default 2)")
    ap.add_argument("--microbatches", "-M", type=int, default=4,
                    help="M, micro-batches per step (default 4)")
    ap.add_argument("--rows", type=int, default=4, help="R, rows per micro-batch (default 4)")
    ap.add_argument("--width", type=int, default=16, help="D, the layer width (default 16)")
    ap.add_argument("--layers-per-stage", "-L", type=int, default=1,
                    help="L, tanh layers per stage (1f1b; default 1)")
    ap.add_argument("--data", "-N", type=int, default=1,
                    help="N, data-parallel ranks beside the stages: grid [N, P] (default 1)")
    ap.add_argument("--stash", choices=["all", "input"], default="all",
                    help="1f1b: what the ring keeps per micro-batch: the stage input and "
                    "every layer's output (all, the default), or the stage input only, "
                    "the backward slot computing the outputs again (input)")
    ap.add_argument("--ring", choices=["stage0", "per-stage"], default="stage0",
                    help="1f1b: the ring's rows: K = min(2P-1, M) on every stage (stage0, "
                    "the default: static), or min(2(P-s)-1, M) on stage s (per-stage: "
                    "tensor<?x...>, sized from the stage index)")
    ap.add_argument("--rings", choices=["separate", "parts"], default="separate",
                    help="1f1b: one tensor per ring (separate, the default), or every ring "
                    "a part of one [K, L+1, R, D] tensor at a constant index, written in "
                    "L+1 parts each iteration and read back in the backward slot (parts)")
    ap.add_argument("--recompute-stages", type=int, metavar="T",
                    help="1f1b-async: a plan per stage written by hand: stages 0 .. T-1 keep "
                    "only the stage input's ring and compute each layer's output again in "
                    "the backward slot, the later stages keep every ring (a branch on the "
                    "stage; T = P: every stage recomputes)")
    ap.add_argument("--variant", type=int, metavar="SEED",
                    help="1f1b-async: respell the step as SEED draws (async_1f1b.py: the "
                    "forward slot's branch inverted, the ring row and the partners' "
                    "indexes as arith, affine or index ops); the math is the same")
    ap.add_argument("--single", action="store_true", help="the single-device twin")
    ap.add_argument("--harness", action="store_true",
                    help="without -o: write the harness instead of the model")
    ap.add_argument("-o", "--output", help="MODEL.mlir (its harness: MODEL.harness.mlir)")
    a = ap.parse_args()
    o = Opts(a)
    model = (single_text(o) if o.single else
             pipeline_text(o) if o.pipeline == "gpipe" else
             onef1b_text(o) if o.pipeline == "1f1b" else
             async_onef1b_text(o, header, maps_text, float_text, drawn_variant(a.variant)))
    if a.output:
        stem = a.output[:-5] if a.output.endswith(".mlir") else a.output
        write_output(a.output, model)
        write_output(stem + ".harness.mlir", harness_text(o))
    else:
        write_output("-", harness_text(o) if a.harness else model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
