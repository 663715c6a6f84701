#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes gen_pipeline.py's GPipe step with L tanh layers per stage, its
per-iteration activations stacked in one of two spellings:

  --stacks parts     one [T, L, R, D] stack for the layers' inputs and one
                     for their outputs, each written in L parts per
                     iteration (layer j's at [i, j], a constant j), as a
                     frontend stacking `stack[i, j]` writes them;
  --stacks separate  the same values in one [T, R, D] stack per layer and
                     kind, each written once per iteration (the twin whose
                     stacks the scan recognizer takes row by row).

Both compute the same values in the same order (the loss and the stage's
gradient [L, D, D] print identically). T = M + P - 1 iterations; stage s
holds layers sL .. sL+L-1 of the stacked weights [P L, D, D] (its slice
w: [L, D, D]); the harness is gen_pipeline.py's.

  gen_gpipe_parts.py --stages 2 --microbatches 4 -L 3 --stacks parts -o step.mlir
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import gen_pipeline as gp  # noqa: E402


class Opts:
    """What gen_pipeline.harness_text reads."""

    def __init__(self, a):
        self.pipeline, self.single, self.N = "gpipe", False, 1
        self.P, self.M, self.R, self.D, self.L = (
            a.stages, a.microbatches, a.rows, a.width, a.layers_per_stage)
        self.Ml, self.stacks = self.M, a.stacks

    def cmdline(self):
        return "--stages %d --microbatches %d --rows %d --width %d -L %d --stacks %s" % (
            self.P, self.M, self.R, self.D, self.L, self.stacks)

    def name(self):
        return "gpipe_p%d_m%d_l%d_%s" % (self.P, self.M, self.L, self.stacks)


def step_text(o):
    P, M, R, D, L = o.P, o.M, o.R, o.D, o.L
    T = M + P - 1
    act = "tensor<%dx%dxf32>" % (R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    wt = "tensor<%dx%dx%dxf32>" % (L, D, D)
    w2 = "tensor<%dx%dxf32>" % (D, D)
    parts = o.stacks == "parts"
    stack = ("tensor<%dx%dx%dx%dxf32>" % (T, L, R, D) if parts
             else "tensor<%dx%dx%dxf32>" % (T, R, D))
    # Stack names: one per kind (parts) or per kind and layer (separate).
    kinds = ["in", "out"]
    names = ["%s" % k for k in kinds] if parts else \
        ["%s%d" % (k, j) for k in kinds for j in range(L)]
    g = gp.grid_text(o)
    inv = gp.float_text(1.0 / (M * R * D))
    scale = gp.float_text(2.0 / (M * R * D))
    c = {v: "%%c%d" % v for v in (0, 1, M - 1, M, T, T - 1, P - 1)}

    def layer_in(j):  # layer j reads the stage input or layer j - 1's output
        return "%in0" if j == 0 else "%%y%d" % (j - 1)
    out = [gp.header(o, "GPipe, %d stages of %d layers, %d micro-batches of %d x %d, "
                        "%d iterations, stacks written %s (gen_gpipe_parts.py's docstring)."
                     % (P, L, M, R, D, T, "in %d parts per iteration" % L if parts
                        else "once per iteration each")).replace(
        "test/Distributed/gen_pipeline.py", "test/Distributed/gen_gpipe_parts.py"),
        g["grid"],
        gp.maps_text(["id=id2", "sc=red2", "tn_a", "tn_b", "tn_o", "nt_a", "nt_b", "nt_o"]),
        "func.func @%s(%%x: %s, %%t: %s, %%w: %s)" % (o.name(), xs, xs, wt),
        "    -> (tensor<f32> {remat.loss}, %s) {" % wt]
    out += ["  %s = arith.constant %d : index" % (n, v) for v, n in sorted(c.items())]
    out += ["  %zero = arith.constant 0.0 : f32",
            "  %%s = %s" % g["stage"],
            "  %%first = arith.cmpi eq, %%s, %s : index" % c[0],
            "  %%last = arith.cmpi eq, %%s, %s : index" % c[P - 1]]
    for j in range(L):
        out.append("  %%w%d = tensor.extract_slice %%w[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
                   % (j, j, D, D, wt, w2))
    out += ["  %%state_e = tensor.empty() : %s" % act,
            "  %%state0 = linalg.fill ins(%%zero : f32) outs(%%state_e : %s) -> %s" % (act, act)]
    out += ["  %%st_%s_e = tensor.empty() : %s" % (n, stack) for n in names]
    out += ["  %loss_e = tensor.empty() : tensor<f32>",
            "  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>",
            "  // forward: iteration i, stage s on micro-batch i - s",
            "  %%fwd:%d = scf.for %%i = %s to %s step %s" % (len(names) + 2, c[0], c[T], c[1]),
            "      iter_args(%%state = %%state0, %s, %%lacc = %%loss0)"
            % ", ".join("%%st_%s = %%st_%s_e" % (n, n) for n in names),
            "      -> (%s, %s, tensor<f32>) {" % (act, ", ".join([stack] * len(names))),
            "    %%mx = arith.minui %%i, %s : index" % c[M - 1],
            "    %%x_i = tensor.extract_slice %%x[%%mx, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
            % (R, D, xs, act),
            "    %%in0_e = tensor.empty() : %s" % act,
            "    %in0 = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = "
            "[\"parallel\", \"parallel\"]}",
            "        ins(%%x_i, %%state, %%first : %s, %s, i1) outs(%%in0_e : %s) {" % (act, act, act),
            "    ^bb0(%a: f32, %b: f32, %f: i1, %o: f32):",
            "      %r = arith.select %f, %a, %b : f32",
            "      linalg.yield %r : f32",
            "    } -> %s" % act]
    for j in range(L):
        out += ["    %%h%d_e = tensor.empty() : %s" % (j, act),
                "    %%h%d_z = linalg.fill ins(%%zero : f32) outs(%%h%d_e : %s) -> %s" % (j, j, act, act),
                "    %%h%d = linalg.matmul ins(%s, %%w%d : %s, %s) outs(%%h%d_z : %s) -> %s"
                % (j, layer_in(j), j, act, w2, j, act, act),
                "    %%y%d_e = tensor.empty() : %s" % (j, act),
                "    %%y%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
                "[\"parallel\", \"parallel\"]} ins(%%h%d : %s) outs(%%y%d_e : %s) {" % (j, j, act, j, act),
                "    ^bb0(%a: f32, %o: f32):",
                "      %r = math.tanh %a : f32",
                "      linalg.yield %r : f32",
                "    } -> %s" % act]
    # The stacks' writes: layer j's input and output at [i, j] or [i].
    yielded = []
    for k, src in (("in", layer_in), ("out", lambda j: "%%y%d" % j)):
        if parts:
            cur = "%%st_%s" % k
            for j in range(L):
                nxt = "%%st_%s_%d" % (k, j)
                out.append("    %s = tensor.insert_slice %s into %s[%%i, %d, 0, 0] "
                           "[1, 1, %d, %d] [1, 1, 1, 1] : %s into %s"
                           % (nxt, src(j), cur, j, R, D, act, stack))
                cur = nxt
            yielded.append(cur)
        else:
            for j in range(L):
                out.append("    %%st_%s%d_n = tensor.insert_slice %s into %%st_%s%d[%%i, 0, 0] "
                           "[1, %d, %d] [1, 1, 1] : %s into %s"
                           % (k, j, src(j), k, j, R, D, act, stack))
                yielded.append("%%st_%s%d_n" % (k, j))
    top = "%%y%d" % (L - 1)
    out += ["    %%gel = arith.cmpi uge, %%i, %s : index" % c[P - 1],
            "    %valid = arith.andi %last, %gel : i1",
            "    %%iml = arith.subi %%i, %s : index" % c[P - 1],
            "    %%mt = arith.select %%gel, %%iml, %s : index" % c[0],
            "    %%t_i = tensor.extract_slice %%t[%%mt, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
            % (R, D, xs, act),
            "    %lacc_n = linalg.generic {indexing_maps = [#id, #id, #sc, #sc], iterator_types = "
            "[\"reduction\", \"reduction\"]}",
            "        ins(%s, %%t_i, %%valid : %s, %s, i1) outs(%%lacc : tensor<f32>) {" % (top, act, act),
            "    ^bb0(%a: f32, %b: f32, %v: i1, %o: f32):",
            "      %d = arith.subf %a, %b : f32",
            "      %sq = arith.mulf %d, %d : f32",
            "      %sum = arith.addf %o, %sq : f32",
            "      %r = arith.select %v, %sum, %o : f32",
            "      linalg.yield %r : f32",
            "    } -> tensor<f32>",
            "    %%next = shard.shift %s on @grid %s offset = 1 : %s -> %s" % (top, g["shift"], act, act),
            "    scf.yield %%next, %s, %%lacc_n : %s, %s, tensor<f32>"
            % (", ".join(yielded), act, ", ".join([stack] * len(names))),
            "  }",
            "  %loss_l_e = tensor.empty() : tensor<f32>",
            "  %%loss_l = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], "
            "iterator_types = []} ins(%%fwd#%d : tensor<f32>) outs(%%loss_l_e : tensor<f32>) {"
            % (len(names) + 1),
            "  ^bb0(%a: f32, %o: f32):",
            "    %%inv = arith.constant %s : f32" % inv,
            "    %r = arith.mulf %a, %inv : f32",
            "    linalg.yield %r : f32",
            "  } -> tensor<f32>",
            "  %%loss = shard.all_reduce %%loss_l on @grid grid_axes = %s reduction = sum "
            ": tensor<f32> -> tensor<f32>" % g["loss_axes"],
            "  %%g_e = tensor.empty() : %s" % act,
            "  %%g0 = linalg.fill ins(%%zero : f32) outs(%%g_e : %s) -> %s" % (act, act),
            "  %%dw_e = tensor.empty() : %s" % w2,
            "  %%dwz = linalg.fill ins(%%zero : f32) outs(%%dw_e : %s) -> %s" % (w2, w2),
            "  // backward: iteration k runs forward iteration i = %d - k in reverse" % (T - 1),
            "  %%bwd:%d = scf.for %%k = %s to %s step %s iter_args(%%g = %%g0, %s)"
            % (L + 1, c[0], c[T], c[1], ", ".join("%%dw%d = %%dwz" % j for j in range(L))),
            "      -> (%s, %s) {" % (act, ", ".join([w2] * L)),
            "    %%i = arith.subi %s, %%k : index" % c[T - 1]]
    for n, k in enumerate(kinds):
        for j in range(L):
            if parts:
                out.append("    %%%s%d_i = tensor.extract_slice %%fwd#%d[%%i, %d, 0, 0] [1, 1, %d, %d] "
                           "[1, 1, 1, 1] : %s to %s" % (k, j, 1 + n, j, R, D, stack, act))
            else:
                out.append("    %%%s%d_i = tensor.extract_slice %%fwd#%d[%%i, 0, 0] [1, %d, %d] "
                           "[1, 1, 1] : %s to %s" % (k, j, 1 + n * L + j, R, D, stack, act))
    out += ["    %%gel = arith.cmpi uge, %%i, %s : index" % c[P - 1],
            "    %%iml = arith.subi %%i, %s : index" % c[P - 1],
            "    %%mt = arith.select %%gel, %%iml, %s : index" % c[0],
            "    %%t_i = tensor.extract_slice %%t[%%mt, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
            % (R, D, xs, act),
            "    %ges = arith.cmpi uge, %i, %s : index",
            "    %ims = arith.subi %i, %s : index",
            "    %%ltm = arith.cmpi ult, %%ims, %s : index" % c[M],
            "    %work = arith.andi %ges, %ltm : i1",
            "    // The last layer's output gradient: the loss's on the last stage,",
            "    // else what the next stage shifted back.",
            "    %%go_e = tensor.empty() : %s" % act,
            "    %%go%d = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #id], iterator_types = "
            "[\"parallel\", \"parallel\"]}" % L,
            "        ins(%%out%d_i, %%t_i, %%g, %%last : %s, %s, %s, i1) outs(%%go_e : %s) {"
            % (L - 1, act, act, act, act),
            "    ^bb0(%yv: f32, %tv: f32, %gv: f32, %l: i1, %o: f32):",
            "      %%scale = arith.constant %s : f32" % scale,
            "      %d = arith.subf %yv, %tv : f32",
            "      %dl = arith.mulf %d, %scale : f32",
            "      %r = arith.select %l, %dl, %gv : f32",
            "      linalg.yield %r : f32",
            "    } -> %s" % act]
    for j in reversed(range(L)):
        out += ["    %%dp%d_e = tensor.empty() : %s" % (j, act),
                "    %%dp%d = linalg.generic {indexing_maps = [#id, #id, #sc, #id], iterator_types = "
                "[\"parallel\", \"parallel\"]}" % j,
                "        ins(%%out%d_i, %%go%d, %%work : %s, %s, i1) outs(%%dp%d_e : %s) {"
                % (j, j + 1, act, act, j, act),
                "    ^bb0(%yv: f32, %gv: f32, %wk: i1, %o: f32):",
                "      %one = arith.constant 1.0 : f32",
                "      %y2 = arith.mulf %yv, %yv : f32",
                "      %dt = arith.subf %one, %y2 : f32",
                "      %dp = arith.mulf %gv, %dt : f32",
                "      %r = arith.select %wk, %dp, %zero : f32",
                "      linalg.yield %r : f32",
                "    } -> %s" % act,
                "    %%dw%d_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = "
                "[\"parallel\", \"parallel\", \"reduction\"]}" % j,
                "        ins(%%in%d_i, %%dp%d : %s, %s) outs(%%dw%d : %s) {" % (j, j, act, act, j, w2),
                "    ^bb0(%a: f32, %b: f32, %o: f32):",
                "      %m = arith.mulf %a, %b : f32",
                "      %r = arith.addf %o, %m : f32",
                "      linalg.yield %r : f32",
                "    } -> %s" % w2,
                "    %%go%d_e = tensor.empty() : %s" % (j, act),
                "    %%go%d_z = linalg.fill ins(%%zero : f32) outs(%%go%d_e : %s) -> %s" % (j, j, act, act),
                "    %%go%d = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = "
                "[\"parallel\", \"parallel\", \"reduction\"]}" % j,
                "        ins(%%dp%d, %%w%d : %s, %s) outs(%%go%d_z : %s) {" % (j, j, act, w2, j, act),
                "    ^bb0(%a: f32, %b: f32, %o: f32):",
                "      %m = arith.mulf %a, %b : f32",
                "      %r = arith.addf %o, %m : f32",
                "      linalg.yield %r : f32",
                "    } -> %s" % act]
    out += ["    %%gnext = shard.shift %%go0 on @grid %s offset = -1 : %s -> %s" % (g["shift"], act, act),
            "    scf.yield %%gnext, %s : %s, %s" % (", ".join("%%dw%d_n" % j for j in range(L)),
                                                  act, ", ".join([w2] * L)),
            "  }",
            "  %%dws_e = tensor.empty() : %s" % wt]
    cur = "%dws_e"
    for j in range(L):
        out.append("  %%dws%d = tensor.insert_slice %%bwd#%d into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] "
                   ": %s into %s" % (j, j + 1, cur, j, D, D, w2, wt))
        cur = "%%dws%d" % j
    out += ["  return %%loss, %s : tensor<f32>, %s" % (cur, wt), "}", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stages", "-P", type=int, default=2)
    ap.add_argument("--microbatches", "-M", type=int, default=4)
    ap.add_argument("--rows", type=int, default=4)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--layers-per-stage", "-L", type=int, default=2)
    ap.add_argument("--stacks", choices=["parts", "separate"], default="parts")
    ap.add_argument("-o", "--output", required=True,
                    help="MODEL.mlir (its harness: MODEL.harness.mlir)")
    a = ap.parse_args()
    o = Opts(a)
    if min(o.M, o.R, o.D, o.L) < 1 or o.P < 2:
        sys.exit("gen_gpipe_parts: sizes must be positive, --stages at least 2")
    gp.write_output(a.output, step_text(o))
    stem = a.output[:-len(".mlir")]
    gp.write_output(stem + ".harness.mlir", gp.harness_text(o).replace(
        "test/Distributed/gen_pipeline.py", "test/Distributed/gen_gpipe_parts.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
