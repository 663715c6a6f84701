# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""2-D convolutions (NCHW; groups 1, depthwise or grouped; strided,
dilated, transposed) and their backward.

Two correlations do all the work: _correlate (out[y] = sum xp[y*s + i*d]
w[i] on a padded input: a convolution's forward) and _transposed (the
input dilated by the stride and padded, correlated with the flipped,
transposed kernel: a convolution's input gradient).  A transposed
convolution is the input gradient of the convolution with its weight, so
its forward is _transposed and its input gradient _correlate."""

import math

from ..graph import meta_shape, pair
from ..mlir import amap, broadcast_op, identity_map, window_op
from .registry import Unsupported, lowers


def _conv_params(x, w, stride, padding, dilation, transposed, groups):
    """(stride, padding, dilation, depthwise) of a convolution the lowering
    handles.  A transposed one's weight is [C_in, C_out / groups, KH, KW]:
    the weight of the convolution from C_out to C_in channels whose input
    gradient it is, so its groups are checked against C_out."""
    if x.rank != 4:
        raise Unsupported("%d-D convolution" % (x.rank - 2))
    cin = w.shape[1] * groups if transposed else x.shape[1]
    depthwise = False
    if groups != 1:
        if groups == cin and w.shape[0] == groups and w.shape[1] == 1:
            depthwise = True
        elif cin % groups or w.shape[0] % groups or w.shape[1] * groups != cin:
            raise Unsupported("grouped convolution (groups=%d)" % groups)
        else:
            depthwise = groups  # grouped: the number of groups
    return pair(stride, [1, 1]), pair(padding, [0, 0]), pair(dilation, [1, 1]), depthwise


def _tap(y, s, i, d):
    """The input index of output position y and kernel tap i (stride s,
    dilation d) in an affine map."""
    return "%s * %d + %s" % (y, s, i if d == 1 else "%s * %d" % (i, d))


def _conv_op(em, loc, base, xp, w, init, stride, dilation, depthwise):
    """The named convolution op on an already padded input (accumulating in
    init's element type: the op extends its f32 operands to it)."""
    r = em.f.value(base, init.shape, init.elt)
    n, f, ho, wo = init.shape
    kh, kw = w.shape[-2:]
    cin = 1 if depthwise else xp.shape[1]
    em._work(loc, 2.0 * n * f * ho * wo * cin * kh * kw)
    opn = "linalg.depthwise_conv_2d_nchw_chw" if depthwise else "linalg.conv_2d_nchw_fchw"
    dil = list(dilation) if any(d != 1 for d in dilation) else 1
    return em.f.op([r], window_op(opn, stride, xp, w, init, r, dil), loc)


def _grouped(depthwise):
    """Whether _conv_params said grouped (the number of groups, > 1)
    rather than depthwise (True) or plain (False)."""
    return depthwise is not True and depthwise is not False


def _split_groups(em, loc, base, v, dim, g):
    """v with dim `dim` (of size g * k) split into [g, k] (a view)."""
    shape = v.shape[:dim] + [g, v.shape[dim] // g] + v.shape[dim + 1:]
    return em.reshape(loc, base, v, shape)


def _grouped_conv(em, loc, base, xp, w, init, stride, dilation, g):
    """Grouped convolution as one generic on the group-split views
    (input [N, G, C, H, W], weight [G, F, C, KH, KW], output [N, G, F, HO,
    WO]): out[n,g,f,y,x] += xp[n,g,c,y*s+i*d,x*s+j*d] * w[g,f,c,i,j]."""
    xg = _split_groups(em, loc + ".xview", loc + "_xg", xp, 1, g)
    wg = _split_groups(em, loc + ".wview", loc + "_wg", w, 0, g)
    og = _split_groups(em, loc + ".oview", base + "_og", init, 1, g)
    c, kh, kw = wg.shape[2:]
    (sh, sw), (dh, dw) = stride, dilation
    # domain (n, g, f, y, x, c, i, j)
    maps = [amap(8, ["d0", "d1", "d5", _tap("d3", sh, "d6", dh), _tap("d4", sw, "d7", dw)]),
            amap(8, ["d1", "d2", "d5", "d6", "d7"]),
            amap(8, ["d0", "d1", "d2", "d3", "d4"])]
    return _grouped_mac(em, loc, base + "_g", [xg, wg], og, maps, c * kh * kw,
                        loc + ".view", base, init.shape)


def _grouped_mac(em, loc, name, ins, og, maps, reduced, view_loc, view_name, shape):
    """og [N, G, ., ., .] += ins[0] * ins[1] summed over the `reduced`
    points of the last three loop dims (one generic, whose maps say which
    elements meet), the result viewed as `shape`: the one kernel of a
    grouped convolution and of its input gradient."""
    em._work(loc, 2.0 * math.prod(og.shape) * reduced)
    r = em.f.generic(name, loc, ins, [og], maps, ["parallel"] * 5 + ["reduction"] * 3,
                     lambda bb, a, o: [em.mac(bb, o[0], a[0], a[1], og.elt)])
    return em.reshape(view_loc, view_name, r, shape)


def _dw_weight(em, loc, w):
    """[C, 1, KH, KW] -> [C, KH, KW] (a view)."""
    return em.reshape(loc + ".view", w.ssa[1:] + "_dw", w, [w.shape[0]] + w.shape[2:])


def _correlate(em, loc, base, xp, wv, out, stride, dilation, depthwise, init=None):
    """out[n,f,y,x] = sum xp[n,c,y*s+i*d,x*s+j*d] w[f,c,i,j] on an already
    padded input (grouped: per group; depthwise: per channel), into init(elt)
    (zeros without)."""
    if _grouped(depthwise):
        return em.product(loc, base, out, math.prod(wv.shape[1:]),
                          lambda acc, b, elt: _grouped_conv(em, loc, b, xp, wv, acc, stride,
                                                            dilation, depthwise), init)
    wk = _dw_weight(em, loc, wv) if depthwise else wv
    return em.product(loc, base, out, math.prod(wv.shape[1:]),
                      lambda acc, b, elt: _conv_op(em, loc, b, xp, wk, acc, stride, dilation,
                                                   depthwise), init)


def _bias_init(em, loc, b, out):
    """init(elt) for em.product: the bias broadcast over N, H, W (extended
    to f64 by a generic); None without a bias."""
    if b is None:
        return None
    bv = em.get(b)

    def init(elt):
        if elt == "f32":
            e = em.f.empty(loc, out, loc)
            r = em.f.value(loc + "_b", out)
            return em.f.op([r], broadcast_op(bv, e, [0, 2, 3]), loc + ".bias")
        e = em.f.empty(loc + "_b64", out, loc, elt)
        return em.f.generic(loc + "_b64", loc + ".bias", [bv], [e],
                            [em.channel_map(4), identity_map(4)], ["parallel"] * 4,
                            lambda bb, a, o: [bb.emit("arith.extf %s : f32 to f64" % a[0])])
    return init


@lowers("aten.convolution.default")
def convolution(em, node, x, w, b, stride, padding, dilation, transposed, output_padding,
                groups):
    xv, wv = em.get(x), em.get(w)
    stride, pad, dil, depthwise = _conv_params(xv, wv, stride, padding, dilation,
                                               transposed, groups)
    out = meta_shape(node)[0]
    loc = node.name
    if transposed:
        init = _bias_init(em, loc, b, out)
        return _transposed(em, loc, loc, xv, out, wv, stride, pad, dil, depthwise, init)
    xp = em.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
    init = _bias_init(em, loc, b, out)
    return _correlate(em, loc, loc, xp, wv, out, stride, dil, depthwise, init)


def _flipped(em, loc, wv, depthwise):
    """The kernel flipped in H and W and, for groups 1, transposed
    ([F, C, KH, KW] -> [C, F, KH, KW]); depthwise [C, KH, KW]."""
    f, c, kh, kw = wv.shape
    if depthwise:
        ef = em.f.empty(loc + "_wflip", [f, kh, kw], loc)
        return em.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                            [amap(3, ["d0", "0", "%d - d1" % (kh - 1), "%d - d2" % (kw - 1)]),
                             identity_map(3)], ["parallel"] * 3,
                            lambda bb, a, o: [a[0]])
    ef = em.f.empty(loc + "_wflip", [c, f, kh, kw], loc)
    return em.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                        [amap(4, ["d1", "d0", "%d - d2" % (kh - 1), "%d - d3" % (kw - 1)]),
                         identity_map(4)], ["parallel"] * 4,
                        lambda bb, a, o: [a[0]])


def _grouped_transposed(em, loc, base, dg, wg, og, dilation):
    """gi[n,g,c,h,w] += dyp[n,g,f,h+(kh-1)d-i*d,w+(kw-1)d-j*d] * w[g,f,c,i,j]
    on the group-split views dg, wg (the kernel flipped through the map of
    dyp: every loop dim then appears alone in some map, as linalg needs),
    into og [N, G, C, H, W]; the result viewed as [N, G * C, H, W]."""
    n, g, cg, h, wd = og.shape
    fg, _, kh, kw = wg.shape[1:]
    dh, dw = dilation

    def flip(y, k, i, d):
        return "%s + %d - %s" % (y, (k - 1) * d, i if d == 1 else "%s * %d" % (i, d))
    # domain (n, g, c, h, w, f, i, j)
    maps = [amap(8, ["d0", "d1", "d5", flip("d3", kh, "d6", dh), flip("d4", kw, "d7", dw)]),
            amap(8, ["d1", "d5", "d2", "d6", "d7"]),
            amap(8, ["d0", "d1", "d2", "d3", "d4"])]
    return _grouped_mac(em, loc, base + "g", [dg, wg], og, maps, fg * kh * kw,
                        loc + ".giview", base, [n, g * cg, h, wd])


def _dilated_padded(em, loc, base, v, lows, highs, stride):
    """v dilated by the stride and padded (one insert_slice); negative pads
    (a padding beyond dilation * (kernel - 1)) crop it (an extract_slice
    of that)."""
    if min(lows + highs) >= 0:
        return em.pad(loc + ".dpad", base, v, lows, highs, strides=stride)
    p = em.pad(loc + ".dpad", base + "_full", v, [max(lo, 0) for lo in lows],
               [max(hi, 0) for hi in highs], strides=stride)
    offs = [0, 0] + [max(-lo, 0) for lo in lows]
    sizes = p.shape[:2] + [p.shape[2 + i] - offs[2 + i] - max(-highs[i], 0) for i in range(2)]
    return em.extract(loc + ".dcrop", base, p, offs, sizes, [1] * 4)


def _transposed(em, loc, base, dyv, out, wv, stride, pad, dilation, depthwise, init=None):
    """The transposed correlation of dyv with the [F, C, KH, KW] kernel into
    `out` [N, C, H, W]: dyv dilated by the stride and padded (one
    insert_slice), correlated with the flipped, transposed kernel.  A
    convolution's input gradient, a transposed convolution's forward (its
    output_padding is the extra high padding up to `out`)."""
    h, wd = out[2:]
    kh, kw = wv.shape[2:]
    ho, wo = dyv.shape[2:]
    reach = [(kh - 1) * dilation[0], (kw - 1) * dilation[1]]
    lows = [reach[0] - pad[0], reach[1] - pad[1]]
    highs = [h + reach[0] - lows[0] - ((ho - 1) * stride[0] + 1),
             wd + reach[1] - lows[1] - ((wo - 1) * stride[1] + 1)]
    dyp = _dilated_padded(em, loc, loc + "_dyp", dyv, lows, highs, stride)
    f = wv.shape[0]
    if _grouped(depthwise):
        g = depthwise
        dg = _split_groups(em, loc + ".dview", loc + "_dg", dyp, 1, g)
        wg = _split_groups(em, loc + ".wview", loc + "_wg", wv, 0, g)
        # accumulated in the group-split shape (a zero fill of it when
        # there is no bias: a view of a 4-D fill measures a larger peak)
        split = init and (lambda elt: _split_groups(em, loc + ".oview", base + "_og",
                                                    init(elt), 1, g))
        return em.product(loc, base, [out[0], g, out[1] // g] + list(out[2:]),
                          (f // g) * kh * kw,
                          lambda z, b, elt: _grouped_transposed(em, loc, b, dg, wg, z,
                                                                dilation), split)
    wf = _flipped(em, loc, wv, depthwise)
    return em.product(loc, base, out, (1 if depthwise else f) * kh * kw,
                      lambda z, b, elt: _conv_op(em, loc, b, dyp, wf, z, [1, 1], dilation,
                                                 depthwise), init)


def _product(bb, a):
    return bb.mul(a[0], a[1])


def _weight_grad(em, loc, dyv, xp, wv, stride, dilation, depthwise):
    """A generic correlating the padded input xp with the output gradient:
    a sum over N x HO x WO (em.sum_generic: in f64 when long).  For a
    transposed convolution the roles swap: xp is its padded output
    gradient, dyv its input."""
    n, c = xp.shape[:2]
    f, _, kh, kw = wv.shape
    ho, wo = dyv.shape[2:]
    (sh, sw), (dh, dw) = stride, dilation
    if _grouped(depthwise):
        # gw[g,f,c,i,j] = sum xp[n,g,c,y*s+i*d,x*s+j*d] * dy[n,g,f,y,x]
        g = depthwise
        xg = _split_groups(em, loc + ".xview", loc + "_xg", xp, 1, g)
        dg = _split_groups(em, loc + ".dyview", loc + "_dyg", dyv, 1, g)
        fg, cg = f // g, c // g
        # domain (g, f, c, i, j, n, y, x)
        maps = [amap(8, ["d5", "d0", "d2", _tap("d6", sh, "d3", dh), _tap("d7", sw, "d4", dw)]),
                amap(8, ["d5", "d0", "d1", "d6", "d7"]),
                amap(8, ["d0", "d1", "d2", "d3", "d4"])]
        em._work(loc, 2.0 * f * cg * kh * kw * n * ho * wo)
        gw = em.sum_generic(loc, loc + "_gwg", [xg, dg], [g, fg, cg, kh, kw], maps,
                            ["parallel"] * 5 + ["reduction"] * 3, _product, n * ho * wo)
        return em.reshape(loc + ".gwview", loc + "_gw", gw, list(wv.shape))
    if depthwise:
        # domain (c, i, j, n, y, x)
        maps = [amap(6, ["d3", "d0", _tap("d4", sh, "d1", dh), _tap("d5", sw, "d2", dw)]),
                amap(6, ["d3", "d0", "d4", "d5"]),
                amap(6, ["d0", "d1", "d2"])]
        iters = ["parallel"] * 3 + ["reduction"] * 3
        em._work(loc, 2.0 * c * kh * kw * n * ho * wo)
        g3 = em.sum_generic(loc, loc + "_gw3", [xp, dyv], [c, kh, kw], maps, iters,
                            _product, n * ho * wo)
        return em.reshape(loc + ".view", loc + "_gw", g3, list(wv.shape))
    maps = [amap(7, ["d4", "d1", _tap("d5", sh, "d2", dh), _tap("d6", sw, "d3", dw)]),
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
    stride, pad, dil, depthwise = _conv_params(xv, wv, stride, padding, dilation,
                                               transposed, groups)
    loc = node.name
    gi = gw = gb = None
    if transposed and (mask[0] or mask[1]):
        # the input gradient of a transposed convolution is the convolution
        # of its padded output gradient, which its weight gradient
        # correlates with its input
        dyp = em.pad(loc + ".pad", loc + "_dyp", dyv, pad, pad)
        if mask[0]:
            gi = _correlate(em, loc, loc + "_gi", dyp, wv, list(xv.shape), stride, dil,
                            depthwise)
        if mask[1]:
            gw = _weight_grad(em, loc, xv, dyp, wv, stride, dil, depthwise)
    elif not transposed:
        if mask[0]:
            gi = _transposed(em, loc, loc + "_gi", dyv, list(xv.shape), wv, stride, pad, dil,
                             depthwise)
        if mask[1]:
            xp = em.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
            gw = _weight_grad(em, loc, dyv, xp, wv, stride, dil, depthwise)
    if mask[2]:
        gb = em.sum_reduce(loc + ".bias", loc + "_gb", [dyv], [1], lambda bb, a: a[0])
    return (gi, gw, gb)
