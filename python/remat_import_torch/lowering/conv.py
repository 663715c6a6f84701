# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""2-D convolutions (NCHW; groups 1, depthwise or grouped) and their backward."""

import math

from ..graph import meta_shape, pair
from ..mlir import amap, broadcast_op, identity_map, window_op
from .registry import Unsupported, lowers


def _conv_params(x, w, stride, padding, dilation, transposed, groups):
    """(stride, padding, depthwise) of a convolution the lowering handles."""
    if transposed:
        raise Unsupported("transposed convolution")
    if x.rank != 4:
        raise Unsupported("%d-D convolution" % (x.rank - 2))
    if any(d != 1 for d in pair(dilation, [1, 1])):
        raise Unsupported("dilated convolution")
    depthwise = False
    if groups != 1:
        if groups == x.shape[1] and w.shape[0] == groups and w.shape[1] == 1:
            depthwise = True
        elif x.shape[1] % groups or w.shape[0] % groups or \
                w.shape[1] * groups != x.shape[1]:
            raise Unsupported("grouped convolution (groups=%d)" % groups)
        else:
            depthwise = groups  # grouped: the number of groups
    return pair(stride, [1, 1]), pair(padding, [0, 0]), depthwise


def _conv_op(em, loc, base, xp, w, init, stride, depthwise):
    """The named convolution op on an already padded input (accumulating in
    init's element type: the op extends its f32 operands to it)."""
    r = em.f.value(base, init.shape, init.elt)
    n, f, ho, wo = init.shape
    kh, kw = w.shape[-2:]
    cin = 1 if depthwise else xp.shape[1]
    em._work(loc, 2.0 * n * f * ho * wo * cin * kh * kw)
    opn = "linalg.depthwise_conv_2d_nchw_chw" if depthwise else "linalg.conv_2d_nchw_fchw"
    return em.f.op([r], window_op(opn, stride, xp, w, init, r), loc)


def _grouped(depthwise):
    """Whether _conv_params said grouped (the number of groups, > 1)
    rather than depthwise (True) or plain (False)."""
    return depthwise is not True and depthwise is not False


def _split_groups(em, loc, base, v, dim, g):
    """v with dim `dim` (of size g * k) split into [g, k] (a view)."""
    shape = v.shape[:dim] + [g, v.shape[dim] // g] + v.shape[dim + 1:]
    return em.reshape(loc, base, v, shape)


def _grouped_conv(em, loc, base, xp, w, init, stride, g):
    """Grouped convolution as one generic on the group-split views
    (input [N, G, C, H, W], weight [G, F, C, KH, KW], output [N, G, F, HO,
    WO]): out[n,g,f,y,x] += xp[n,g,c,y*s+i,x*s+j] * w[g,f,c,i,j]."""
    xg = _split_groups(em, loc + ".xview", loc + "_xg", xp, 1, g)
    wg = _split_groups(em, loc + ".wview", loc + "_wg", w, 0, g)
    og = _split_groups(em, loc + ".oview", base + "_og", init, 1, g)
    n, _, f, ho, wo = og.shape
    c, kh, kw = wg.shape[2:]
    sh, sw = stride
    # domain (n, g, f, y, x, c, i, j)
    maps = [amap(8, ["d0", "d1", "d5", "d3 * %d + d6" % sh, "d4 * %d + d7" % sw]),
            amap(8, ["d1", "d2", "d5", "d6", "d7"]),
            amap(8, ["d0", "d1", "d2", "d3", "d4"])]
    em._work(loc, 2.0 * n * g * f * ho * wo * c * kh * kw)
    r = em.f.generic(base + "_g", loc, [xg, wg], [og], maps,
                     ["parallel"] * 5 + ["reduction"] * 3,
                     lambda bb, a, o: [em.mac(bb, o[0], a[0], a[1], init.elt)])
    return em.reshape(loc + ".view", base, r, init.shape)


def _dw_weight(em, loc, w):
    """[C, 1, KH, KW] -> [C, KH, KW] (a view)."""
    return em.reshape(loc + ".view", w.ssa[1:] + "_dw", w, [w.shape[0]] + w.shape[2:])


@lowers("aten.convolution.default")
def convolution(em, node, x, w, b, stride, padding, dilation, transposed, output_padding,
                groups):
    xv, wv = em.get(x), em.get(w)
    stride, pad, depthwise = _conv_params(xv, wv, stride, padding, dilation,
                                          transposed, groups)
    out = meta_shape(node)[0]
    loc = node.name
    xp = em.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
    init = None
    if b is not None:
        bv = em.get(b)

        def init(elt):
            """The bias broadcast over N, H, W (extended to f64 by a generic)."""
            if elt == "f32":
                e = em.f.empty(loc, out, loc)
                r = em.f.value(loc + "_b", out)
                return em.f.op([r], broadcast_op(bv, e, [0, 2, 3]), loc + ".bias")
            e = em.f.empty(loc + "_b64", out, loc, elt)
            return em.f.generic(loc + "_b64", loc + ".bias", [bv], [e],
                                [em.channel_map(4), identity_map(4)], ["parallel"] * 4,
                                lambda bb, a, o: [bb.emit("arith.extf %s : f32 to f64" % a[0])])
    if _grouped(depthwise):
        return em.product(loc, loc, out, wv.shape[1] * wv.shape[2] * wv.shape[3],
                          lambda acc, base, elt: _grouped_conv(em, loc, base, xp, wv, acc,
                                                               stride, depthwise), init)
    wk = _dw_weight(em, loc, wv) if depthwise else wv
    return em.product(loc, loc, out, math.prod(wv.shape[1:]),
                      lambda acc, base, elt: _conv_op(em, loc, base, xp, wk, acc, stride,
                                                      depthwise), init)


def _input_grad(em, loc, dyv, xv, wv, stride, pad, depthwise):
    """The output gradient dilated by the stride and padded, convolved with
    the flipped (and, for groups 1, transposed) kernel."""
    n, c, h, wd = xv.shape
    f, _, kh, kw = wv.shape
    ho, wo = dyv.shape[2:]
    lows = [kh - 1 - pad[0], kw - 1 - pad[1]]
    if min(lows) < 0:
        raise Unsupported("padding larger than kernel - 1")
    highs = [h + kh - 1 - lows[0] - ((ho - 1) * stride[0] + 1),
             wd + kw - 1 - lows[1] - ((wo - 1) * stride[1] + 1)]
    if min(highs) < 0:
        raise Unsupported("input gradient geometry")
    dyp = em.pad(loc + ".dpad", loc + "_dyp", dyv, lows, highs, strides=stride)
    if _grouped(depthwise):
        # gi[n,g,c,h,w] = sum dyp[n,g,f,h+kh-1-i,w+kw-1-j] * w[g,f,c,i,j]
        # (the kernel flipped through the map of dyp: every loop dim then
        # appears alone in some map, as linalg needs)
        g = depthwise
        dg = _split_groups(em, loc + ".dview", loc + "_dg", dyp, 1, g)
        wg = _split_groups(em, loc + ".wview", loc + "_wg", wv, 0, g)
        cg = c // g
        maps = [amap(8, ["d0", "d1", "d5", "d3 + %d - d6" % (kh - 1), "d4 + %d - d7" % (kw - 1)]),
                amap(8, ["d1", "d5", "d2", "d6", "d7"]),
                amap(8, ["d0", "d1", "d2", "d3", "d4"])]
        em._work(loc, 2.0 * n * c * h * wd * (f // g) * kh * kw)

        def grouped(z, base, elt):
            gi = em.f.generic(base + "g", loc, [dg, wg], [z], maps,
                              ["parallel"] * 5 + ["reduction"] * 3,
                              lambda bb, a, o: [em.mac(bb, o[0], a[0], a[1], elt)])
            return em.reshape(loc + ".giview", base, gi, [n, c, h, wd])
        return em.product(loc, loc + "_gi", [n, g, cg, h, wd], (f // g) * kh * kw, grouped)
    if depthwise:
        ef = em.f.empty(loc + "_wflip", [c, kh, kw], loc)
        wf = em.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                          [amap(3, ["d0", "0", "%d - d1" % (kh - 1), "%d - d2" % (kw - 1)]),
                           identity_map(3)], ["parallel"] * 3,
                          lambda bb, a, o: [a[0]])
    else:
        ef = em.f.empty(loc + "_wflip", [c, f, kh, kw], loc)
        wf = em.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                          [amap(4, ["d1", "d0", "%d - d2" % (kh - 1), "%d - d3" % (kw - 1)]),
                           identity_map(4)], ["parallel"] * 4,
                          lambda bb, a, o: [a[0]])
    return em.product(loc, loc + "_gi", [n, c, h, wd], (1 if depthwise else f) * kh * kw,
                      lambda z, base, elt: _conv_op(em, loc, base, dyp, wf, z, [1, 1],
                                                    depthwise))


def _product(bb, a):
    return bb.mul(a[0], a[1])


def _weight_grad(em, loc, dyv, xv, wv, stride, pad, depthwise):
    """A generic correlating the padded input with the output gradient: a
    sum over N x HO x WO (em.sum_generic: in f64 when long)."""
    n, c = xv.shape[:2]
    f, _, kh, kw = wv.shape
    ho, wo = dyv.shape[2:]
    xp = em.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
    sh, sw = stride
    if _grouped(depthwise):
        # gw[g,f,c,i,j] = sum xp[n,g,c,y*s+i,x*s+j] * dy[n,g,f,y,x]
        g = depthwise
        xg = _split_groups(em, loc + ".xview", loc + "_xg", xp, 1, g)
        dg = _split_groups(em, loc + ".dyview", loc + "_dyg", dyv, 1, g)
        fg, cg = f // g, c // g
        # domain (g, f, c, i, j, n, y, x)
        maps = [amap(8, ["d5", "d0", "d2", "d6 * %d + d3" % sh, "d7 * %d + d4" % sw]),
                amap(8, ["d5", "d0", "d1", "d6", "d7"]),
                amap(8, ["d0", "d1", "d2", "d3", "d4"])]
        em._work(loc, 2.0 * f * cg * kh * kw * n * ho * wo)
        gw = em.sum_generic(loc, loc + "_gwg", [xg, dg], [g, fg, cg, kh, kw], maps,
                            ["parallel"] * 5 + ["reduction"] * 3, _product, n * ho * wo)
        return em.reshape(loc + ".gwview", loc + "_gw", gw, list(wv.shape))
    if depthwise:
        # domain (c, i, j, n, y, x)
        maps = [amap(6, ["d3", "d0", "d4 * %d + d1" % sh, "d5 * %d + d2" % sw]),
                amap(6, ["d3", "d0", "d4", "d5"]),
                amap(6, ["d0", "d1", "d2"])]
        iters = ["parallel"] * 3 + ["reduction"] * 3
        em._work(loc, 2.0 * c * kh * kw * n * ho * wo)
        g3 = em.sum_generic(loc, loc + "_gw3", [xp, dyv], [c, kh, kw], maps, iters,
                            _product, n * ho * wo)
        return em.reshape(loc + ".view", loc + "_gw", g3, list(wv.shape))
    maps = [amap(7, ["d4", "d1", "d5 * %d + d2" % sh, "d6 * %d + d3" % sw]),
            amap(7, ["d4", "d0", "d5", "d6"]),
            amap(7, ["d0", "d1", "d2", "d3"])]
    iters = ["parallel"] * 4 + ["reduction"] * 3
    em._work(loc, 2.0 * f * c * kh * kw * n * ho * wo)
    return em.sum_generic(loc, loc + "_gw", [xp, dyv], list(wv.shape), maps, iters,
                          _product, n * ho * wo)


@lowers("aten.convolution_backward.default")
def convolution_backward(em, node, dy, x, w, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, mask):
    dyv, xv, wv = em.get(dy), em.get(x), em.get(w)
    stride, pad, depthwise = _conv_params(xv, wv, stride, padding, dilation,
                                          transposed, groups)
    loc = node.name
    gi = gw = gb = None
    if mask[0]:
        gi = _input_grad(em, loc, dyv, xv, wv, stride, pad, depthwise)
    if mask[1]:
        gw = _weight_grad(em, loc, dyv, xv, wv, stride, pad, depthwise)
    if mask[2]:
        gb = em.sum_reduce(loc + ".bias", loc + "_gb", [dyv], [1], lambda bb, a: a[0])
    return (gi, gw, gb)
