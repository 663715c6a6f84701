# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The asynchronous 1F1B step gen_pipeline.py writes (--pipeline 1f1b-async).

As PyTorch's Schedule1F1B runs it: every rank its own sequence of slots,
the stages passing activations and gradients by point-to-point
shard.send / shard.recv under control flow on the stage index, no masked
bubbles. Stage s of P runs W = min(P-1-s, M) warm-up forwards, then one
forward and one backward per iteration, then W cool-down backwards: one
scf.for of M + W iterations (the trip count from the stage index) whose
iteration k runs

  1. forward of micro-batch k if k < M (stage 0 reads x[k], the others the
     input received before), stashed in slot k mod K of the rings, sent on
     to stage s+1 (the last stage adds its loss instead);
  2. backward of micro-batch b = k - W if k >= W: its output gradient
     received from stage s+1 (the last stage: its loss's), its stashed
     rows read from slot b mod K;
  3. the input of micro-batch k+1 received from stage s-1, if k+1 < M;
  4. the backward's input gradient sent to stage s-1.

A send completes when its partner receives (the runtime's synchronous
mode), so the order matters: receiving the next input (3) before sending
the gradient back (4) pairs every send of stage s-1 (its forward's, then
its backward's receive) with a receive stage s has already posted; the
wait chains end at the last stage, which receives nothing from later.

Stage s holds W + 1 = min(P-s, M) micro-batches in flight (written at
iteration k, read back at k + W): the rings have K = min(P-s, M) rows
(tensor<?x R x D>, sized from the stage index), for the stage input and
each layer's output. One data axis only (no --data).
"""

from pipeline_layers import tanh_layer_backward


def async_onef1b_text(o, header, maps_text, float_text, variant=None):
    """The step's text. `variant` (gen_pipeline.py --variant SEED) respells
    what a frontend may write otherwise: `swap`, the forward slot as
    scf.if (k >= M) with the rows written on its else path; `slot`, the
    ring row k mod K as arith.remui, an affine.apply or index.remu;
    `partner`, s - 1 and s + 1 as arith, affine.apply or index ops."""
    v = dict(swap=False, slot="remui", partner="arith")
    v.update(variant or {})
    P, M, R, D, L = o.P, o.Ml, o.R, o.D, o.L
    T = getattr(o, "recompute_stages", None)  # None: every stage keeps every ring
    act = "tensor<%dx%dxf32>" % (R, D)
    ring = "tensor<?x%dx%dxf32>" % (R, D)
    xs = "tensor<%dx%dx%dxf32>" % (M, R, D)
    wt = "tensor<%dx%dx%dxf32>" % (L, D, D)
    w2 = "tensor<%dx%dxf32>" % (D, D)
    inv = float_text(1.0 / (o.M * R * D))
    scale = float_text(2.0 / (o.M * R * D))
    NR = L + 1
    send = "shard.send %%%s on @grid grid_axes = [0] destination = [%%%s] : (%s, index) -> %s"
    recv = "shard.recv %%%s on @grid grid_axes = [0] source = [%%%s] : (%s, index) -> %s"
    B = []
    e = B.append

    def tanh_layer(ind, dst, src, w):
        e(ind + "%%%s_he = tensor.empty() : %s" % (dst, act))
        e(ind + "%%%s_hz = linalg.fill ins(%%zero : f32) outs(%%%s_he : %s) -> %s" % (dst, dst, act, act))
        e(ind + "%%%s_h = linalg.matmul ins(%%%s, %%%s : %s, %s) outs(%%%s_hz : %s) -> %s"
          % (dst, src, w, act, w2, dst, act, act))
        e(ind + "%%%s_e = tensor.empty() : %s" % (dst, act))
        e(ind + "%%%s = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}" % dst)
        e(ind + "    ins(%%%s_h : %s) outs(%%%s_e : %s) {" % (dst, act, dst, act))
        e(ind + "^bb0(%a: f32, %out: f32):")
        e(ind + "  %r = math.tanh %a : f32")
        e(ind + "  linalg.yield %r : f32")
        e(ind + "} -> " + act)

    # Before the loop.
    e("  %s = shard.process_linear_index on @grid : index")
    e("  %first = arith.cmpi eq, %s, %c0 : index")
    e("  %%last = arith.cmpi eq, %%s, %%c%d : index" % (P - 1))
    e("  %true = arith.constant true")
    e("  %notfirst = arith.xori %first, %true : i1")
    e("  %notlast = arith.xori %last, %true : i1")
    if v["partner"] == "affine":
        e("  %prev = affine.apply affine_map<(d0) -> (d0 - 1)>(%s)")
        e("  %next = affine.apply affine_map<(d0) -> (d0 + 1)>(%s)")
    elif v["partner"] == "index":
        e("  %prev = index.sub %s, %c1")
        e("  %next = index.add %c1, %s")
    else:
        e("  %prev = arith.subi %s, %c1 : index")
        e("  %next = arith.addi %s, %c1 : index")

    def row_of(dst, idx):
        if v["slot"] == "affine":
            e("      %%%s = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%%%s)[%%K]" % (dst, idx))
        elif v["slot"] == "index":
            e("      %%%s = index.remu %%%s, %%K" % (dst, idx))
        else:
            e("      %%%s = arith.remui %%%s, %%K : index" % (dst, idx))
    e("  // W = min(P-1-s, M) warm-up forwards; K = W + 1 micro-batches in flight")
    e("  // (at most M): the rings' rows.")
    e("  %%wu = arith.subi %%c%d, %%s : index" % (P - 1))
    e("  %W = arith.minui %wu, %cM : index")
    e("  %kw = arith.addi %W, %c1 : index")
    e("  %K = arith.minui %kw, %cM : index")
    e("  %n = arith.addi %cM, %W : index")
    if T is not None:
        e("  // A plan per stage, by hand: stages below %d keep the stage input's" % T)
        e("  // ring only (the layers' rings have no rows there) and compute the")
        e("  // layers' outputs again in the backward slot.")
        e("  %%cT = arith.constant %d : index" % T)
        e("  %rc = arith.cmpi ult, %s, %cT : index")
        e("  %KL = arith.select %rc, %c0, %K : index")
    for j in range(L):
        e("  %%w%d = tensor.extract_slice %%w[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
          % (j, j, D, D, wt, w2))
    e("  %zact_e = tensor.empty() : " + act)
    e("  %zact = linalg.fill ins(%zero : f32) outs(%zact_e : {0}) -> {0}".format(act))
    e("  %loss_e = tensor.empty() : tensor<f32>")
    e("  %loss0 = linalg.fill ins(%zero : f32) outs(%loss_e : tensor<f32>) -> tensor<f32>")
    for j in range(NR):
        e("  %%ring%d_x = tensor.empty(%%%s) : %s" % (j, "KL" if T is not None and j else "K", ring))
        e("  %%ring%d_e = linalg.fill ins(%%zero : f32) outs(%%ring%d_x : %s) -> %s" % (j, j, ring, ring))
    for j in range(L):
        e("  %%dw%d_e = tensor.empty() : %s" % (j, w2))
        e("  %%dw%d_0 = linalg.fill ins(%%zero : f32) outs(%%dw%d_e : %s) -> %s" % (j, j, w2, w2))
    e("  // Micro-batch 0's input, from the previous stage.")
    e("  %in0 = scf.if %notfirst -> (" + act + ") {")
    e("    %r = " + recv % ("zact_e", "prev", act, act))
    e("    scf.yield %r : " + act)
    e("  } else {")
    e("    scf.yield %zact : " + act)
    e("  }")
    iters = ["%xin = %in0", "%lacc = %loss0"]
    iters += ["%%ring%d = %%ring%d_e" % (j, j) for j in range(NR)]
    iters += ["%%dw%d = %%dw%d_0" % (j, j) for j in range(L)]
    itys = [act, "tensor<f32>"] + [ring] * NR + [w2] * L
    e("  %%it:%d = scf.for %%k = %%c0 to %%n step %%c1" % len(iters))
    e("      iter_args(%s)" % ", ".join(iters))
    e("      -> (%s) {" % ", ".join(itys))
    # 1. Forward slot.
    fty = [ring] * NR + ["tensor<f32>"]
    e("    // 1. The forward of micro-batch k.")
    keep = "      scf.yield %s : %s" % (", ".join(["%%ring%d" % j for j in range(NR)] + ["%lacc"]),
                                          ", ".join(fty))
    if v["swap"]:
        e("    %fdone = arith.cmpi uge, %k, %cM : index")
        e("    %%F:%d = scf.if %%fdone -> (%s) {" % (NR + 1, ", ".join(fty)))
        e(keep)
        e("    } else {")
    else:
        e("    %fv = arith.cmpi ult, %k, %cM : index")
        e("    %%F:%d = scf.if %%fv -> (%s) {" % (NR + 1, ", ".join(fty)))
    e("      %%x_k = tensor.extract_slice %%x[%%k, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("      %a0 = arith.select %first, %x_k, %xin : " + act)
    for j in range(1, L + 1):
        tanh_layer("      ", "a%d" % j, "a%d" % (j - 1), "w%d" % (j - 1))
    row_of("fslot", "k")
    for j in range(NR):
        insert = ("tensor.insert_slice %%a%d into %%ring%d[%%fslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
                  % (j, j, R, D, act, ring))
        if T is None or j == 0:
            e("      %%ring%d_f = %s" % (j, insert))
            continue
        e("      %%ring%d_f = scf.if %%rc -> (%s) {" % (j, ring))
        e("        scf.yield %%ring%d : %s" % (j, ring))
        e("      } else {")
        e("        %%ring%d_w = %s" % (j, insert))
        e("        scf.yield %%ring%d_w : %s" % (j, ring))
        e("      }")
    e("      %lacc_f = scf.if %last -> (tensor<f32>) {")
    e("        %%t_k = tensor.extract_slice %%t[%%k, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("        %l = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = [\"reduction\", \"reduction\"]}")
    e("            ins(%%a%d, %%t_k : %s, %s) outs(%%lacc : tensor<f32>) {" % (L, act, act))
    e("        ^bb0(%a: f32, %b: f32, %out: f32):")
    e("          %d = arith.subf %a, %b : f32")
    e("          %sq = arith.mulf %d, %d : f32")
    e("          %sum = arith.addf %out, %sq : f32")
    e("          linalg.yield %sum : f32")
    e("        } -> tensor<f32>")
    e("        scf.yield %l : tensor<f32>")
    e("      } else {")
    e("        %sent = " + send % ("a%d" % L, "next", act, act))
    e("        scf.yield %lacc : tensor<f32>")
    e("      }")
    e("      scf.yield %s : %s" % (", ".join(["%%ring%d_f" % j for j in range(NR)] + ["%lacc_f"]),
                                   ", ".join(fty)))
    if not v["swap"]:
        e("    } else {")
        e(keep)
    e("    }")
    # 2. Backward slot.
    bty = [w2] * L + [act]
    e("    // 2. The backward of micro-batch b = k - W.")
    e("    %bv = arith.cmpi uge, %k, %W : index")
    e("    %%Bk:%d = scf.if %%bv -> (%s) {" % (L + 1, ", ".join(bty)))
    e("      %b = arith.subi %k, %W : index")
    row_of("bslot", "b")
    for j in range(NR):
        extract = ("tensor.extract_slice %%F#%d[%%bslot, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s"
                   % (j, R, D, ring, act))
        if T is None or j == 0:
            e("      %%s%d = %s" % (j, extract))
            continue
        e("      %%s%d = scf.if %%rc -> (%s) {" % (j, act))
        tanh_layer("        ", "r%d" % j, "s%d" % (j - 1), "w%d" % (j - 1))
        e("        scf.yield %%r%d : %s" % (j, act))
        e("      } else {")
        e("        %%x%d = %s" % (j, extract))
        e("        scf.yield %%x%d : %s" % (j, act))
        e("      }")
    e("      // The output gradient: the loss's on the last stage, else the next stage's.")
    e("      %gout = scf.if %last -> (" + act + ") {")
    e("        %%t_b = tensor.extract_slice %%t[%%b, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s" % (R, D, xs, act))
    e("        %gl_e = tensor.empty() : " + act)
    e("        %gl = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\", \"parallel\"]}")
    e("            ins(%%s%d, %%t_b : %s, %s) outs(%%gl_e : %s) {" % (L, act, act, act))
    e("        ^bb0(%yv: f32, %tv: f32, %out: f32):")
    e("          %%scale = arith.constant %s : f32" % scale)
    e("          %dd = arith.subf %yv, %tv : f32")
    e("          %dl = arith.mulf %dd, %scale : f32")
    e("          linalg.yield %dl : f32")
    e("        } -> " + act)
    e("        scf.yield %gl : " + act)
    e("      } else {")
    e("        %gr = " + recv % ("zact_e", "next", act, act))
    e("        scf.yield %gr : " + act)
    e("      }")
    grad = "gout"
    for j in range(L, 0, -1):
        tanh_layer_backward(e, "      ", j, act, w2, grad=grad, empty="d%d_e" % j)
        grad = "gx%d" % (j - 1)
    e("      scf.yield %s, %%gx0 : %s" % (", ".join("%%dw%d_n" % j for j in range(L)), ", ".join(bty)))
    e("    } else {")
    e("      scf.yield %s, %%zact : %s" % (", ".join("%%dw%d" % j for j in range(L)), ", ".join(bty)))
    e("    }")
    # 3. The next input; 4. the gradient back.
    e("    // 3. The input of micro-batch k + 1, received before the gradient")
    e("    // goes back (4): the previous stage sends it first.")
    e("    %k1 = arith.addi %k, %c1 : index")
    e("    %more = arith.cmpi ult, %k1, %cM : index")
    e("    %rv = arith.andi %more, %notfirst : i1")
    e("    %xin_n = scf.if %rv -> (" + act + ") {")
    e("      %r = " + recv % ("zact_e", "prev", act, act))
    e("      scf.yield %r : " + act)
    e("    } else {")
    e("      scf.yield %xin : " + act)
    e("    }")
    e("    // 4. The input gradient to the previous stage.")
    e("    %sv = arith.andi %bv, %notfirst : i1")
    e("    scf.if %sv {")
    e("      %gsent = " + send % ("Bk#%d" % L, "prev", act, act))
    e("    }")
    yields = ["%xin_n", "%%F#%d" % NR] + ["%%F#%d" % j for j in range(NR)] + ["%%Bk#%d" % j for j in range(L)]
    e("    scf.yield %s : %s" % (", ".join(yields), ", ".join(itys)))
    e("  }")
    # After the loop.
    e("  %loss_l_e = tensor.empty() : tensor<f32>")
    e("  %loss_l = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}")
    e("      ins(%it#1 : tensor<f32>) outs(%loss_l_e : tensor<f32>) {")
    e("  ^bb0(%a: f32, %out: f32):")
    e("    %%inv = arith.constant %s : f32" % inv)
    e("    %r = arith.mulf %a, %inv : f32")
    e("    linalg.yield %r : f32")
    e("  } -> tensor<f32>")
    e("  // Only the last stage's is not zero: the sum gives every rank the loss.")
    e("  %loss = shard.all_reduce %loss_l on @grid grid_axes = [0] reduction = sum : tensor<f32> -> tensor<f32>")
    prev = "%dws_e"
    e("  %%dws_e = tensor.empty() : %s" % wt)
    for j in range(L):
        nxt = "%%dws%d" % j
        e("  %s = tensor.insert_slice %%it#%d into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s"
          % (nxt, 2 + NR + j, prev, j, D, D, w2, wt))
        prev = nxt
    e("  return %%loss, %s : tensor<f32>, %s" % (prev, wt))
    e("}")
    consts = "".join("  %%c%d = arith.constant %d : index\n" % (v, v)
                     for v in sorted({0, 1, P - 1}))
    what = ("asynchronous 1F1B (PyTorch's Schedule1F1B: point-to-point send/recv), "
            "%d stages x %d layers, %d micro-batches of %d x %d (async_1f1b.py's docstring)."
            % (P, L, M, R, D))
    return header(o, what) + """\
shard.grid @grid(shape = %d)
%s
func.func @%s(%%x: %s, %%t: %s,
                    %%w: %s)
    -> (tensor<f32> {remat.loss}, %s) {
%s  %%cM = arith.constant %d : index
  %%zero = arith.constant 0.0 : f32
""" % (P, maps_text(["id=id2", "sc=red2", "tn_a", "tn_b", "tn_o", "nt_a", "nt_b", "nt_o"]),
       o.name(), xs, xs, wt, wt, consts, M) + "\n".join(B) + "\n"
