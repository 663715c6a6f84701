# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Window ops on NCHW tensors: max / average / adaptive pooling, nearest
upsampling, and their backward ops (gathers over the windows that contain
each input pixel: no scatter, no atomics)."""

import math

from ..graph import meta_shape, pair, tuple_shapes
from ..mlir import amap, identity_map
from .builder import NEG_INF
from .registry import Unsupported, lowers


def _pool_geometry(x, kernel, stride, padding, ceil_mode, out):
    k = pair(kernel)
    s = pair(stride, k)
    p = pair(padding, [0, 0])
    h, w = x.shape[2:]
    ho, wo = out[2:]
    # Extra rows/cols on the high side (ceil_mode): windows past the edge.
    extra = [max(0, (ho - 1) * s[0] + k[0] - (h + 2 * p[0])),
             max(0, (wo - 1) * s[1] + k[1] - (w + 2 * p[1]))]
    return k, s, p, extra


@lowers("aten.max_pool2d_with_indices.default")
def max_pool2d_with_indices(em, node, x, kernel, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    xv = em.get(x)
    if any(d != 1 for d in pair(dilation, [1, 1])):
        raise Unsupported("dilated pooling")
    out = tuple_shapes(node).get(0, (None,))[0] or meta_shape(node)
    (kh, kw), (sh, sw), p, extra = _pool_geometry(xv, kernel, stride, padding,
                                                  ceil_mode, out)
    loc = node.name
    xp = em.pad(loc + ".pad", loc + "_xp", xv, p, [p[0] + extra[0], p[1] + extra[1]],
                value=NEG_INF)
    win = em.f.empty(loc + "_win", [kh, kw], loc)
    zv = em.f.filled(loc, out, loc, NEG_INF)
    zi = em.f.filled(loc + "_idx", out, loc, 0, "i32")
    maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % sh, "d3 * %d + d5" % sw]),
            amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"]),
            amap(6, ["d0", "d1", "d2", "d3"])]

    def body(bb, a, o):
        i, j = bb.index(4), bb.index(5)
        k = bb.cast_index(bb.apply("d0 * %d + d1" % kw, [i, j]))
        gt = bb.cmpf("ogt", a[0], o[0])
        return [bb.select(gt, a[0], o[0]), bb.select(gt, k, o[1], "i32")]
    em._work(loc, math.prod(out) * kh * kw * 2)
    pv, idx = em.f.generic(loc, loc, [xp, win], [zv, zi], maps,
                           ["parallel"] * 4 + ["reduction"] * 2, body,
                           out_names=[loc, loc + "_idx"])
    return (pv, idx)


def _pool_backward(em, loc, g, x, k, s, p, idx=None, scale=None):
    """dx[n,c,Y,X] = sum over the windows that contain (Y, X) of their
    gradient (times [argmax == position] for max pooling, or scale)."""
    n, c, h, w = x.shape
    ho, wo = g.shape[2:]
    A = [(k[0] - 1) // s[0], (k[1] - 1) // s[1]]
    tot = [max((h - 1 + p[0]) // s[0] + A[0] + 1, ho + A[0]),
           max((w - 1 + p[1]) // s[1] + A[1] + 1, wo + A[1])]
    highs = [tot[0] - ho - A[0], tot[1] - wo - A[1]]
    gp = em.pad(loc + ".dpad", loc + "_gp", g, A, highs)
    ins = [gp]
    rd = ["d0", "d1", "(d2 + %d) floordiv %d - d4 + %d" % (p[0], s[0], A[0]),
          "(d3 + %d) floordiv %d - d5 + %d" % (p[1], s[1], A[1])]
    maps = [amap(6, rd)]
    if idx is not None:
        ip = em.pad(loc + ".ipad", loc + "_ip", idx, A, highs, value=-1, )
        ins.append(ip)
        maps.append(amap(6, rd))
    win = em.f.empty(loc + "_win", [A[0] + 1, A[1] + 1], loc)
    ins.append(win)
    maps.append(amap(6, ["d4", "d5"]))
    maps.append(amap(6, ["d0", "d1", "d2", "d3"]))
    z = em.f.filled(loc, [n, c, h, w], loc)

    def body(bb, a, o):
        yy, xx, aa, b_ = bb.index(2), bb.index(3), bb.index(4), bb.index(5)
        i = bb.apply("(d0 + %d) mod %d + d1 * %d" % (p[0], s[0], s[0]), [yy, aa])
        j = bb.apply("(d0 + %d) mod %d + d1 * %d" % (p[1], s[1], s[1]), [xx, b_])
        ok = bb.andi(bb.emit("arith.cmpi ult, %s, %s : index" % (i, bb.cidx(k[0]))),
                     bb.emit("arith.cmpi ult, %s, %s : index" % (j, bb.cidx(k[1]))))
        if idx is not None:
            code = bb.cast_index(bb.apply("d0 * %d + d1" % k[1], [i, j]))
            ok = bb.andi(ok, bb.cmpi("eq", a[1], code))
            val = a[0]
        else:
            val = bb.mul(a[0], bb.cf(scale))
        return [bb.add(o[0], bb.select(ok, val, bb.cf(0.0)))]
    em._work(loc, n * c * h * w * (A[0] + 1) * (A[1] + 1) * 2)
    return em.f.generic(loc, loc, ins, [z], maps,
                        ["parallel"] * 4 + ["reduction"] * 2, body)


@lowers("aten.max_pool2d_with_indices_backward.default")
def max_pool2d_with_indices_backward(em, node, g, x, kernel, stride, padding, dilation,
                                     ceil_mode, indices):
    gv, xv = em.get(g), em.get(x)
    k, s, p, _ = _pool_geometry(xv, kernel, stride, padding, ceil_mode, gv.shape)
    return _pool_backward(em, node.name, gv, xv, k, s, p, idx=em.get(indices))


def _avg_pool(em, loc, xv, out, k, s, p, extra):
    xp = em.pad(loc + ".pad", loc + "_xp", xv, p, [p[0] + extra[0], p[1] + extra[1]])
    win = em.f.empty(loc + "_win", k, loc)
    z = em.f.filled(loc, out, loc)
    maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % s[0], "d3 * %d + d5" % s[1]]),
            amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
    c = 1.0 / (k[0] * k[1])
    em._work(loc, math.prod(out) * k[0] * k[1] * 2)
    return em.f.generic(loc, loc, [xp, win], [z], maps,
                        ["parallel"] * 4 + ["reduction"] * 2,
                        lambda bb, a, o: [bb.add(o[0], bb.mul(a[0], bb.cf(c)))])


@lowers("aten.avg_pool2d.default")
def avg_pool2d(em, node, x, kernel, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    xv = em.get(x)
    out = meta_shape(node)[0]
    k, s, p, extra = _pool_geometry(xv, kernel, stride, padding, ceil_mode, out)
    if divisor_override or (not count_include_pad and any(p)) or any(extra):
        raise Unsupported("avg_pool2d variant")
    return _avg_pool(em, node.name, xv, out, k, s, p, extra)


@lowers("aten.avg_pool2d_backward.default")
def avg_pool2d_backward(em, node, g, x, kernel, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    gv, xv = em.get(g), em.get(x)
    k, s, p, extra = _pool_geometry(xv, kernel, stride, padding, ceil_mode, gv.shape)
    if divisor_override or (not count_include_pad and any(p)) or any(extra):
        raise Unsupported("avg_pool2d variant")
    return _pool_backward(em, node.name, gv, xv, k, s, p, scale=1.0 / (k[0] * k[1]))


def _repeat(em, loc, xv, out, f):
    """out[n,c,y,x] = xv[n,c,y/f0,x/f1]: nearest upsampling by integers."""
    e = em.f.empty(loc, out, loc)
    em._work(loc, math.prod(out))
    return em.f.generic(loc, loc, [xv], [e],
                        [amap(4, ["d0", "d1", "d2 floordiv %d" % f[0],
                                  "d3 floordiv %d" % f[1]]), identity_map(4)],
                        ["parallel"] * 4, lambda bb, a, o: [a[0]])


def _window_sum(em, loc, gv, out, f):
    """out[n,c,y,x] = sum of gv over its f0 x f1 window: _repeat's backward."""
    win = em.f.empty(loc + "_win", f, loc)
    z = em.f.filled(loc, out, loc)
    maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % f[0], "d3 * %d + d5" % f[1]]),
            amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
    em._work(loc, gv.numel)
    return em.f.generic(loc, loc, [gv, win], [z], maps,
                        ["parallel"] * 4 + ["reduction"] * 2,
                        lambda bb, a, o: [bb.add(o[0], a[0])])


def _bin_start(d, n, m):
    """First pixel of adaptive pooling's bin `d` (an affine dim) of m bins
    over n pixels: floor(d n / m), PyTorch's."""
    return "(%s * %d) floordiv %d" % (d, n, m)


def _bin_size(d, n, m):
    """Pixels in bin `d`: ceil((d + 1) n / m) - floor(d n / m)."""
    return "((%s + 1) * %d + %d) floordiv %d - %s" % (d, n, m - 1, m, _bin_start(d, n, m))


def _bins_of_pixel(d, n, m):
    """(first bin containing pixel `d`: floor(d m / n), how many do:
    ceil((d + 1) m / n) - floor(d m / n)), the bins being as above."""
    return _bin_start(d, m, n), _bin_size(d, m, n)


def _widest(n, m):
    """The most pixels a bin of m over n pixels covers."""
    return max(-(-(i + 1) * n // m) - i * n // m for i in range(m))


def _count(bb, sizes):
    """float(product of the index values `sizes`)."""
    c = bb.emit("arith.muli %s, %s : index" % tuple(sizes))
    return bb.emit("arith.sitofp %s : i32 to f32" % bb.cast_index(c))


def _below(bb, a, b):
    return bb.emit("arith.cmpi ult, %s, %s : index" % (a, b))


def _bin_windows(em, loc, xv, oh, ow, value=0.0):
    """x padded past its edge (with `value`) by the widest bin of adaptive
    pooling to oh x ow, that bin's window, and the maps of a generic over
    (n, c, i, j, r, t) reading pixel (r, t) of bin (i, j) into out[n,c,i,j]."""
    h, w = xv.shape[2:]
    kh, kw = _widest(h, oh), _widest(w, ow)
    xp = em.pad(loc + ".pad", loc + "_xp", xv, [0, 0], [kh - 1, kw - 1], value=value)
    win = em.f.empty(loc + "_win", [kh, kw], loc)
    maps = [amap(6, ["d0", "d1", _bin_start("d2", h, oh) + " + d4",
                     _bin_start("d3", w, ow) + " + d5"]),
            amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
    return xp, win, maps


def _in_bin(bb, h, w, oh, ow):
    """In a generic of _bin_windows: (whether pixel (r, t) lies inside bin
    (i, j), the bin's sizes, the index values (i, j, r, t))."""
    i, j, r, t = (bb.index(d) for d in (2, 3, 4, 5))
    sizes = [bb.apply(_bin_size("d0", h, oh), [i]), bb.apply(_bin_size("d0", w, ow), [j])]
    ok = bb.andi(_below(bb, r, sizes[0]), _below(bb, t, sizes[1]))
    return ok, sizes, (i, j, r, t)


def _adaptive_pool(em, loc, xv, oh, ow):
    """out[n,c,i,j] = mean of x over bin (i, j), whose rows are
    [floor(i h / oh), ceil((i + 1) h / oh)) (columns alike): uneven bins,
    overlapping when oh does not divide h, larger than the input or not.
    The reduction runs over the widest bin, x padded past its edge, each
    term masked to its own bin's size and divided by that size."""
    n, c, h, w = xv.shape
    xp, win, maps = _bin_windows(em, loc, xv, oh, ow)
    z = em.f.filled(loc, [n, c, oh, ow], loc)

    def body(bb, a, o):
        ok, sizes, _ = _in_bin(bb, h, w, oh, ow)
        return [bb.add(o[0], bb.select(ok, bb.div(a[0], _count(bb, sizes)), bb.cf(0.0)))]
    em._work(loc, n * c * oh * ow * math.prod(win.shape) * 2)
    return em.f.generic(loc, loc, [xp, win], [z], maps,
                        ["parallel"] * 4 + ["reduction"] * 2, body)


def _adaptive_max_pool(em, loc, xv, oh, ow):
    """out[n,c,i,j] = max of x over bin (i, j) (as _adaptive_pool, x padded
    with -inf) and its first argmax y * w + x (i64: PyTorch's indices)."""
    n, c, h, w = xv.shape
    xp, win, maps = _bin_windows(em, loc, xv, oh, ow, NEG_INF)
    zv = em.f.filled(loc, [n, c, oh, ow], loc, NEG_INF)
    zi = em.f.filled(loc + "_idx", [n, c, oh, ow], loc, 0, "i64")
    at = "(%s + d2) * %d + %s + d3" % (_bin_start("d0", h, oh), w, _bin_start("d1", w, ow))

    def body(bb, a, o):
        ok, _, ijrt = _in_bin(bb, h, w, oh, ow)
        k = bb.cast_index(bb.apply(at, list(ijrt)), "i64")
        gt = bb.andi(ok, bb.cmpf("ogt", a[0], o[0]))
        return [bb.select(gt, a[0], o[0]), bb.select(gt, k, o[1], "i64")]
    em._work(loc, n * c * oh * ow * math.prod(win.shape) * 2)
    return em.f.generic(loc, loc, [xp, win], [zv, zi], maps + [maps[-1]],
                        ["parallel"] * 4 + ["reduction"] * 2, body,
                        out_names=[loc, loc + "_idx"])


def _adaptive_pool_backward(em, loc, gv, xv, idx=None):
    """dx[n,c,y,x] = sum over the bins (i, j) containing pixel (y, x) of
    g[n,c,i,j] / the bin's size (with `idx`, max pooling's argmax: of
    g[n,c,i,j] where idx[n,c,i,j] is the pixel): a gather over the
    consecutive bins of each pixel (g padded past its edge, terms masked to
    the pixel's bins)."""
    n, c, h, w = xv.shape
    oh, ow = gv.shape[2:]
    mh, mw = _widest(oh, h), _widest(ow, w)
    ins = [em.pad(loc + ".dpad", loc + "_gp", gv, [0, 0], [mh - 1, mw - 1])]
    first = [_bins_of_pixel("d2", h, oh)[0], _bins_of_pixel("d3", w, ow)[0]]
    read = amap(6, ["d0", "d1", first[0] + " + d4", first[1] + " + d5"])
    maps = [read]
    if idx is not None:
        ins.append(em.pad(loc + ".ipad", loc + "_ip", idx, [0, 0], [mh - 1, mw - 1], value=-1))
        maps.append(read)
    ins.append(em.f.empty(loc + "_win", [mh, mw], loc))
    maps += [amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
    z = em.f.filled(loc, [n, c, h, w], loc)

    def body(bb, a, o):
        y, x, r, t = (bb.index(d) for d in (2, 3, 4, 5))
        many = [bb.apply(_bins_of_pixel("d0", h, oh)[1], [y]),
                bb.apply(_bins_of_pixel("d0", w, ow)[1], [x])]
        ok = bb.andi(_below(bb, r, many[0]), _below(bb, t, many[1]))
        if idx is not None:
            at = bb.cast_index(bb.apply("d0 * %d + d1" % w, [y, x]), idx.elt)
            return [bb.add(o[0], bb.select(bb.andi(ok, bb.cmpi("eq", a[1], at, idx.elt)),
                                           a[0], bb.cf(0.0)))]
        # The bin's size, at its index first + r (past the last bin, where
        # the term is masked, a size of at least 1 all the same).
        i = bb.apply(_bins_of_pixel("d0", h, oh)[0] + " + d1", [y, r])
        j = bb.apply(_bins_of_pixel("d0", w, ow)[0] + " + d1", [x, t])
        sizes = [bb.apply(_bin_size("d0", h, oh), [i]), bb.apply(_bin_size("d0", w, ow), [j])]
        return [bb.add(o[0], bb.select(ok, bb.div(a[0], _count(bb, sizes)), bb.cf(0.0)))]
    em._work(loc, n * c * h * w * mh * mw * 2)
    return em.f.generic(loc, loc, ins, [z], maps,
                        ["parallel"] * 4 + ["reduction"] * 2, body)


@lowers("aten._adaptive_avg_pool2d.default")
def adaptive_avg_pool2d(em, node, x, output_size):
    xv = em.get(x)
    oh, ow = pair(output_size)
    h, w = xv.shape[2:]
    if (oh, ow) == (h, w):
        return xv
    if oh % h == 0 and ow % w == 0:
        # Output bins smaller than a pixel: each is a copy of one pixel.
        return _repeat(em, node.name, xv, xv.shape[:2] + [oh, ow], [oh // h, ow // w])
    if h % oh or w % ow:
        return _adaptive_pool(em, node.name, xv, oh, ow)
    k = [h // oh, w // ow]
    return _avg_pool(em, node.name, xv, xv.shape[:2] + [oh, ow], k, k, [0, 0], [0, 0])


@lowers("aten._adaptive_avg_pool2d_backward.default")
def adaptive_avg_pool2d_backward(em, node, g, x):
    gv, xv = em.get(g), em.get(x)
    h, w = xv.shape[2:]
    oh, ow = gv.shape[2:]
    if (oh, ow) == (h, w):
        return gv
    if oh % h == 0 and ow % w == 0:
        return _window_sum(em, node.name, gv, xv.shape, [oh // h, ow // w])
    if h % oh or w % ow:
        return _adaptive_pool_backward(em, node.name, gv, xv)
    k = [h // oh, w // ow]
    return _pool_backward(em, node.name, gv, xv, k, k, [0, 0], scale=1.0 / (k[0] * k[1]))


@lowers("aten.upsample_nearest2d.vec")
def upsample_nearest2d(em, node, x, output_size, scale_factors):
    xv = em.get(x)
    out = meta_shape(node)[0]
    f = [out[2] // xv.shape[2], out[3] // xv.shape[3]]
    if out[2] != xv.shape[2] * f[0] or out[3] != xv.shape[3] * f[1]:
        raise Unsupported("non-integer upsampling")
    return _repeat(em, node.name, xv, out, f)


@lowers("aten.upsample_nearest2d_backward.vec")
def upsample_nearest2d_backward(em, node, g, output_size, input_size, scale_factors):
    gv = em.get(g)
    out = list(input_size)
    f = [gv.shape[2] // out[2], gv.shape[3] // out[3]]
    if gv.shape[2] != out[2] * f[0] or gv.shape[3] != out[3] * f[1]:
        raise Unsupported("non-integer upsampling")
    return _window_sum(em, node.name, gv, out, f)


@lowers("aten.adaptive_max_pool2d.default")
def adaptive_max_pool2d(em, node, x, output_size):
    xv = em.get(x)
    oh, ow = pair(output_size)
    return _adaptive_max_pool(em, node.name, xv, oh, ow)


@lowers("aten.adaptive_max_pool2d_backward.default")
def adaptive_max_pool2d_backward(em, node, g, x, indices):
    return _adaptive_pool_backward(em, node.name, em.get(g), em.get(x), em.get(indices))
