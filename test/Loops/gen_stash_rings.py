#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes randomly varied training steps whose one loop stashes rows in rings
and reads them back a few iterations later (a delayed backward, as a 1F1B
pipeline stage runs it), for the property test of StashRings.h.

Inputs/delayed_backward.mlir is one such step written by hand; these vary
what a frontend may vary: the ring's rows (K), the micro-batches (M), the
delay d (1 .. K-1: micro-batch j is stashed at iteration j and read back at
j + d), layers per step (L tanh(a W_l) layers, a ring per layer output
besides the input's), slices rank-reduced ([K, R, D] -> [R, D]) or not
([1, R, D] with collapse_shape / expand_shape), writes plain or masked
(select(valid, v, old row), operands in either order with the condition
negated) or in a branch (scf.if valid: written, else the rings as they
are; or the paths swapped with the condition negated), the write row spelled k mod K or f mod K (f = min(k, M - 1)),
and where the reads stand (all first, or each before its use, in any
order). Iteration k < M + d: forward of micro-batch f, loss += sum(h_L^2)
while k < M; backward of micro-batch k - d from row (k - d) mod K, masked
by a factor 0 while k < d; the result is the mean loss over the
micro-batches and its gradients with respect to every W_l.

Usage: gen_stash_rings.py --seed N -o MODEL.mlir  (also writes
MODEL.harness.mlir); --describe prints the variant. Standard library only.
"""

import argparse
import random
import sys

R, D = 4, 8


def variant(seed):
    rnd = random.Random(seed)
    K = rnd.randint(2, 4)
    return {
        "K": K,
        "M": rnd.randint(K, K + 3),
        "d": rnd.randint(1, K - 1),
        "L": rnd.randint(1, 3),
        "reduced": rnd.random() < 0.5,
        "masked": rnd.random() < 0.5,
        "swapped": rnd.random() < 0.5,
        "row_of_k": rnd.random() < 0.5,
        "reads_first": rnd.random() < 0.5,
        "read_order": rnd.sample(range(4), 4),
        # Drawn last: the earlier seeds' other choices stay as they were.
        "branch": rnd.random() < 0.5,
    }


class Emitter:
    def __init__(self):
        self.lines, self.n = [], 0

    def fresh(self, stem):
        self.n += 1
        return "%%%s%d" % (stem, self.n)

    def emit(self, text, indent=4):
        self.lines.append(" " * indent + text)


ROW = "tensor<%dx%dxf32>" % (R, D)
ROW3 = "tensor<1x%dx%dxf32>" % (R, D)
W = "tensor<%dx%dxf32>" % (D, D)


def model(v):
    K, M, d, L = v["K"], v["M"], v["d"], v["L"]
    T = M + d
    ring = "tensor<%dx%dx%dxf32>" % (K, R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    slice_t = ROW if v["reduced"] else ROW3
    e = Emitter()
    ws = ", ".join("%%w%d: %s" % (l, W) for l in range(L))
    outs = ", ".join([W] * L)
    e.emit("func.func @rings(%%x: %s, %s)" % (xs, ws), 0)
    e.emit("    -> (tensor<f32> {remat.loss}, %s) {" % outs, 0)
    for c in sorted({0, 1, K, M - 1, M, T, d}):
        e.emit("%%c%d = arith.constant %d : index" % (c, c), 2)
    e.emit("%zero = arith.constant 0.0 : f32", 2)
    e.emit("%one = arith.constant 1.0 : f32", 2)
    e.emit("%%ring_e = tensor.empty() : %s" % ring, 2)
    e.emit("%%ring0 = linalg.fill ins(%%zero : f32) outs(%%ring_e : %s) -> %s" % (ring, ring), 2)
    e.emit("%loss_e = tensor.empty() : tensor<f32>", 2)
    e.emit("%loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>", 2)
    e.emit("%%dw_e = tensor.empty() : %s" % W, 2)
    e.emit("%%dw0 = linalg.fill ins(%%zero : f32) outs(%%dw_e : %s) -> %s" % (W, W), 2)
    rings = ["%%r%d" % i for i in range(L + 1)]
    dws = ["%%dw%d_c" % l for l in range(L)]
    iters = ", ".join(["%s = %%ring0" % r for r in rings] + ["%loss = %loss0"] +
                      ["%s = %%dw0" % g for g in dws])
    types = ", ".join([ring] * (L + 1) + ["tensor<f32>"] + [W] * L)
    e.emit("%%res:%d = scf.for %%k = %%c0 to %%c%d step %%c1" % (L + 2 + L, T), 2)
    e.emit("    iter_args(%s)" % iters, 2)
    e.emit("    -> (%s) {" % types, 2)
    # Forward of micro-batch f.
    e.emit("%%f = arith.minui %%k, %%c%d : index" % (M - 1))
    e.emit("%%wslot = arith.remui %s, %%c%d : index" % ("%k" if v["row_of_k"] else "%f", K))
    e.emit("%%fwd = arith.cmpi ult, %%k, %%c%d : index" % M)
    e.emit("%%a0s = tensor.extract_slice %%x[%%f, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
           % (R, D, xs, slice_t))
    if v["reduced"]:
        acts = ["%a0s"]
    else:
        e.emit("%%a0 = tensor.collapse_shape %%a0s [[0, 1], [2]] : %s into %s" % (ROW3, ROW))
        acts = ["%a0"]
    for l in range(L):
        e.emit("%%p%d_e = tensor.empty() : %s" % (l, ROW))
        e.emit("%%p%d_z = linalg.fill ins(%%zero : f32) outs(%%p%d_e : %s) -> %s" % (l, l, ROW, ROW))
        e.emit("%%p%d = linalg.matmul ins(%s, %%w%d : %s, %s) outs(%%p%d_z : %s) -> %s"
               % (l, acts[-1], l, ROW, W, l, ROW, ROW))
        e.emit("%%a%d_e = tensor.empty() : %s" % (l + 1, ROW))
        e.emit("%%a%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
               "[\"parallel\", \"parallel\"]} ins(%%p%d : %s) outs(%%a%d_e : %s) {"
               % (l + 1, l, ROW, l + 1, ROW))
        e.emit("^bb0(%v: f32, %o: f32):")
        e.emit("  %t = math.tanh %v : f32")
        e.emit("  linalg.yield %t : f32")
        e.emit("} -> %s" % ROW)
        acts.append("%%a%d" % (l + 1))
    # Stash every activation in its ring: in place, or (branch, not masked)
    # on one path of an scf.if on the forward's validity, the other path
    # yielding the rings as they are (an asynchronous 1F1B stage's form).
    branch = v["branch"] and not v["masked"]
    stores = []
    for i, a in enumerate(acts):
        val = a
        if not v["reduced"]:
            e.emit("%%s%d_v = tensor.expand_shape %s [[0, 1], [2]] output_shape [1, %d, %d] : %s into %s"
                   % (i, a, R, D, ROW, ROW3))
            val = "%%s%d_v" % i
        if v["masked"]:
            e.emit("%%o%d = tensor.extract_slice %s[%%wslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
                   % (i, rings[i], R, D, ring, slice_t))
            e.emit("%%k%d_e = tensor.empty() : %s" % (i, slice_t))
            maps = "[#id%s, #id%s, #sc%s, #id%s]" % ((("3",) * 4) if not v["reduced"] else ("",) * 4)
            iters3 = '["parallel", "parallel", "parallel"]' if not v["reduced"] else '["parallel", "parallel"]'
            cond = "%fwd_n" if v["swapped"] else "%fwd"
            first, second = ("%%o%d" % i, val) if v["swapped"] else (val, "%%o%d" % i)
            e.emit("%%k%d = linalg.generic {indexing_maps = %s, iterator_types = %s} "
                   "ins(%s, %s, %s : %s, %s, i1) outs(%%k%d_e : %s) {"
                   % (i, maps, iters3, first, second, cond, slice_t, slice_t, i, slice_t))
            e.emit("^bb0(%u: f32, %w: f32, %c: i1, %o: f32):")
            e.emit("  %r = arith.select %c, %u, %w : f32")
            e.emit("  linalg.yield %r : f32")
            e.emit("} -> %s" % slice_t)
            val = "%%k%d" % i
        if branch:
            stores.append((i, val))
            continue
        e.emit("%s_n = tensor.insert_slice %s into %s[%%wslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
               % (rings[i], val, rings[i], R, D, slice_t, ring))
    if branch:
        names = ", ".join("%s_n" % r for r in rings)
        ring_types = ", ".join([ring] * len(rings))
        writes = ["  %s_w = tensor.insert_slice %s into %s[%%wslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
                  % (rings[i], val, rings[i], R, D, slice_t, ring) for i, val in stores]
        written = "  scf.yield %s : %s" % (", ".join("%s_w" % r for r in rings), ring_types)
        kept = "  scf.yield %s : %s" % (", ".join(rings), ring_types)
        if v["swapped"]:
            e.emit("%s = scf.if %%fwd_n -> (%s) {" % (names, ring_types))
            e.emit(kept)
            e.emit("} else {")
            for w in writes:
                e.emit(w)
            e.emit(written)
        else:
            e.emit("%s = scf.if %%fwd -> (%s) {" % (names, ring_types))
            for w in writes:
                e.emit(w)
            e.emit(written)
            e.emit("} else {")
            e.emit(kept)
        e.emit("}")
    e.emit("%lm = arith.select %fwd, %one, %zero : f32")
    e.emit("%%loss_n = linalg.generic {indexing_maps = [#id, #sc], iterator_types = "
           "[\"reduction\", \"reduction\"]} ins(%s : %s) outs(%%loss : tensor<f32>) {" % (acts[-1], ROW))
    e.emit("^bb0(%v: f32, %acc: f32):")
    e.emit("  %sq = arith.mulf %v, %v : f32")
    e.emit("  %m = arith.mulf %sq, %lm : f32")
    e.emit("  %s = arith.addf %acc, %m : f32")
    e.emit("  linalg.yield %s : f32")
    e.emit("} -> tensor<f32>")
    # Backward of micro-batch k - d (row (k + K - d) mod K), masked while k < d.
    e.emit("%%kb = arith.addi %%k, %%c%d : index" % K)
    e.emit("%%kbd = arith.subi %%kb, %%c%d : index" % d)
    e.emit("%%rslot = arith.remui %%kbd, %%c%d : index" % K)
    e.emit("%%bwd = arith.cmpi uge, %%k, %%c%d : index" % d)
    e.emit("%bm = arith.select %bwd, %one, %zero : f32")
    reads = {}

    def read(i):
        if i in reads:
            return reads[i]
        e.emit("%%q%d_s = tensor.extract_slice %s_n[%%rslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
               % (i, rings[i], R, D, ring, slice_t))
        if v["reduced"]:
            reads[i] = "%%q%d_s" % i
        else:
            e.emit("%%q%d = tensor.collapse_shape %%q%d_s [[0, 1], [2]] : %s into %s" % (i, i, ROW3, ROW))
            reads[i] = "%%q%d" % i
        return reads[i]

    if v["reads_first"]:
        for i in [j for j in v["read_order"] if j <= L]:
            read(i)
    # Through the layers backwards: g_L = 2 h (1 - h^2) bm, then
    # dW_l += a_l^T g_l, g_{l-1} = (g_l W_l^T) (1 - a_l^2).
    top = read(L)
    e.emit("%%g%d_e = tensor.empty() : %s" % (L, ROW))
    e.emit("%%g%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
           "[\"parallel\", \"parallel\"]} ins(%s : %s) outs(%%g%d_e : %s) {" % (L, top, ROW, L, ROW))
    e.emit("^bb0(%v: f32, %o: f32):")
    e.emit("  %two = arith.constant 2.0 : f32")
    e.emit("  %v2 = arith.mulf %v, %v : f32")
    e.emit("  %dd = arith.subf %one, %v2 : f32")
    e.emit("  %t = arith.mulf %v, %dd : f32")
    e.emit("  %t2 = arith.mulf %t, %two : f32")
    e.emit("  %m = arith.mulf %t2, %bm : f32")
    e.emit("  linalg.yield %m : f32")
    e.emit("} -> %s" % ROW)
    new_dws = [None] * L
    for l in range(L - 1, -1, -1):
        below = read(l)
        e.emit("%%dw%d_n = linalg.generic {indexing_maps = [#tn_a, #tn_b, #tn_o], iterator_types = "
               "[\"parallel\", \"parallel\", \"reduction\"]} ins(%s, %%g%d : %s, %s) outs(%s : %s) {"
               % (l, below, l + 1, ROW, ROW, dws[l], W))
        e.emit("^bb0(%u: f32, %v: f32, %acc: f32):")
        e.emit("  %m = arith.mulf %u, %v : f32")
        e.emit("  %s = arith.addf %acc, %m : f32")
        e.emit("  linalg.yield %s : f32")
        e.emit("} -> %s" % W)
        new_dws[l] = "%%dw%d_n" % l
        if l > 0:
            e.emit("%%gx%d_e = tensor.empty() : %s" % (l, ROW))
            e.emit("%%gx%d_z = linalg.fill ins(%%zero : f32) outs(%%gx%d_e : %s) -> %s" % (l, l, ROW, ROW))
            e.emit("%%gx%d = linalg.generic {indexing_maps = [#nt_a, #nt_b, #nt_o], iterator_types = "
                   "[\"parallel\", \"parallel\", \"reduction\"]} ins(%%g%d, %%w%d : %s, %s) outs(%%gx%d_z : %s) {"
                   % (l, l + 1, l, ROW, W, l, ROW))
            e.emit("^bb0(%u: f32, %v: f32, %acc: f32):")
            e.emit("  %m = arith.mulf %u, %v : f32")
            e.emit("  %s = arith.addf %acc, %m : f32")
            e.emit("  linalg.yield %s : f32")
            e.emit("} -> %s" % ROW)
            e.emit("%%g%d_e = tensor.empty() : %s" % (l, ROW))
            e.emit("%%g%d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = "
                   "[\"parallel\", \"parallel\"]} ins(%%gx%d, %s : %s, %s) outs(%%g%d_e : %s) {"
                   % (l, l, below, ROW, ROW, l, ROW))
            e.emit("^bb0(%u: f32, %a: f32, %o: f32):")
            e.emit("  %asq = arith.mulf %a, %a : f32")
            e.emit("  %dd = arith.subf %one, %asq : f32")
            e.emit("  %m = arith.mulf %u, %dd : f32")
            e.emit("  linalg.yield %m : f32")
            e.emit("} -> %s" % ROW)
    yields = ["%s_n" % r for r in rings] + ["%loss_n"] + new_dws
    e.emit("scf.yield %s : %s" % (", ".join(yields), types))
    e.emit("}", 2)
    e.emit("%%inv = arith.constant %r : f32" % (1.0 / M), 2)
    e.emit("%lm_e = tensor.empty() : tensor<f32>", 2)
    e.emit("%%lmean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], "
           "iterator_types = []} ins(%%res#%d : tensor<f32>) outs(%%lm_e : tensor<f32>) {" % (L + 1), 2)
    e.emit("^bb0(%v: f32, %o: f32):", 2)
    e.emit("  %m = arith.mulf %v, %inv : f32", 2)
    e.emit("  linalg.yield %m : f32", 2)
    e.emit("} -> tensor<f32>", 2)
    means = []
    for l in range(L):
        e.emit("%%gm%d_e = tensor.empty() : %s" % (l, W), 2)
        e.emit("%%gm%d = linalg.generic {indexing_maps = [#id, #id], iterator_types = "
               "[\"parallel\", \"parallel\"]} ins(%%res#%d : %s) outs(%%gm%d_e : %s) {"
               % (l, L + 2 + l, W, l, W), 2)
        e.emit("^bb0(%v: f32, %o: f32):", 2)
        e.emit("  %m = arith.mulf %v, %inv : f32", 2)
        e.emit("  linalg.yield %m : f32", 2)
        e.emit("} -> %s" % W, 2)
        means.append("%%gm%d" % l)
    e.emit("return %%lmean, %s : tensor<f32>, %s" % (", ".join(means), outs), 2)
    e.emit("}", 0)
    body = "\n".join(e.lines)
    if (v["masked"] or v["branch"]) and v["swapped"]:
        # The negated condition, defined with the other forward values.
        body = body.replace("    %fwd = arith.cmpi ult",
                            "    %%fwd_n = arith.cmpi uge, %%k, %%c%d : index\n    %%fwd = arith.cmpi ult" % M, 1)
    header = ("// GENERATED by test/Loops/gen_stash_rings.py; do not edit.\n"
              "// Variant: %s\n"
              "#id = affine_map<(i, j) -> (i, j)>\n"
              "#id3 = affine_map<(b, i, j) -> (b, i, j)>\n"
              "#sc = affine_map<(i, j) -> ()>\n"
              "#sc3 = affine_map<(b, i, j) -> ()>\n"
              "#tn_a = affine_map<(i, j, n) -> (n, i)>\n"
              "#tn_b = affine_map<(i, j, n) -> (n, j)>\n"
              "#tn_o = affine_map<(i, j, n) -> (i, j)>\n"
              "#nt_a = affine_map<(n, i, j) -> (n, j)>\n"
              "#nt_b = affine_map<(n, i, j) -> (i, j)>\n"
              "#nt_o = affine_map<(n, i, j) -> (n, i)>\n") % sorted(v.items())
    return header + body + "\n"


def harness(v):
    M, L = v["M"], v["L"]
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    lines = ["// Harness of @rings: x[m, i, j] = sin(0.1 (m + 1) + 0.3 i + 0.7 j),",
             "// W_l[i, j] = 0.25 cos(i - 2 j + l); prints the loss and every dW_l.",
             "func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {",
             "  %%xe = tensor.empty() : %s" % xs,
             "  %%x = linalg.generic {indexing_maps = [affine_map<(m, i, j) -> (m, i, j)>], "
             "iterator_types = [\"parallel\", \"parallel\", \"parallel\"]} outs(%%xe : %s) {" % xs,
             "  ^bb0(%out: f32):",
             "    %m = linalg.index 0 : index", "    %i = linalg.index 1 : index",
             "    %j = linalg.index 2 : index",
             "    %mi = arith.index_cast %m : index to i64", "    %ii = arith.index_cast %i : index to i64",
             "    %ji = arith.index_cast %j : index to i64",
             "    %mf = arith.sitofp %mi : i64 to f32", "    %if = arith.sitofp %ii : i64 to f32",
             "    %jf = arith.sitofp %ji : i64 to f32",
             "    %one = arith.constant 1.0 : f32", "    %a = arith.constant 0.1 : f32",
             "    %b = arith.constant 0.3 : f32", "    %c = arith.constant 0.7 : f32",
             "    %m1 = arith.addf %mf, %one : f32", "    %t0 = arith.mulf %m1, %a : f32",
             "    %t1 = arith.mulf %if, %b : f32", "    %t2 = arith.mulf %jf, %c : f32",
             "    %s0 = arith.addf %t0, %t1 : f32", "    %s1 = arith.addf %s0, %t2 : f32",
             "    %v = math.sin %s1 : f32", "    linalg.yield %v : f32",
             "  } -> %s" % xs]
    for l in range(L):
        lines += ["  %%we%d = tensor.empty() : %s" % (l, W),
                  "  %%w%d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], "
                  "iterator_types = [\"parallel\", \"parallel\"]} outs(%%we%d : %s) {" % (l, l, W),
                  "  ^bb0(%out: f32):",
                  "    %i = linalg.index 0 : index", "    %j = linalg.index 1 : index",
                  "    %ii = arith.index_cast %i : index to i64", "    %ji = arith.index_cast %j : index to i64",
                  "    %if = arith.sitofp %ii : i64 to f32", "    %jf = arith.sitofp %ji : i64 to f32",
                  "    %two = arith.constant 2.0 : f32", "    %q = arith.constant 0.25 : f32",
                  "    %%lf = arith.constant %d.0 : f32" % l,
                  "    %j2 = arith.mulf %jf, %two : f32", "    %d0 = arith.subf %if, %j2 : f32",
                  "    %d = arith.addf %d0, %lf : f32",
                  "    %cs = math.cos %d : f32", "    %v = arith.mulf %cs, %q : f32",
                  "    linalg.yield %v : f32", "  } -> %s" % W]
    ws = ", ".join("%%w%d" % l for l in range(L))
    lines.append("  %%r:%d = func.call @rings(%%x, %s) : (%s, %s) -> (tensor<f32>, %s)"
                 % (L + 1, ws, xs, ", ".join([W] * L), ", ".join([W] * L)))
    lines += ["  %l = tensor.cast %r#0 : tensor<f32> to tensor<*xf32>",
              "  call @printMemrefF32(%l) : (tensor<*xf32>) -> ()"]
    for l in range(L):
        lines += ["  %%g%d = tensor.cast %%r#%d : %s to tensor<*xf32>" % (l, l + 1, W),
                  "  call @printMemrefF32(%%g%d) : (tensor<*xf32>) -> ()" % l]
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", dest="out")
    ap.add_argument("--describe", action="store_true")
    a = ap.parse_args()
    v = variant(a.seed)
    if a.describe:
        print(" ".join("%s=%s" % kv for kv in sorted(v.items())))
        return
    if not a.out:
        sys.stdout.write(model(v))
        return
    with open(a.out, "w") as f:
        f.write(model(v))
    with open(a.out[:-len(".mlir")] + ".harness.mlir", "w") as f:
        f.write(harness(v))


if __name__ == "__main__":
    main()
