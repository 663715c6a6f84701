# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Batch normalization (training mode) and layer normalization, forward and
backward: statistics as reductions, then elementwise generics."""

import math

from ..mlir import amap, identity_map
from .reductions import reduced_dims
from .registry import Unsupported, lowers


def _square_dev(bb, a):
    """(x - mean)^2: the term of a variance sum."""
    d = bb.sub(a[0], a[1])
    return bb.mul(d, d)


@lowers("aten.var_mean.correction")
def var_mean(em, node, x, dim=None, correction=None, keepdim=False):
    """(variance, mean) over `dim` (None or []: all), the variance's sum of
    squared deviations divided by n - correction (default 1): GroupNorm's
    and InstanceNorm's statistics (their decompositions)."""
    v = em.get(x)
    r = v.rank
    red, keep, n = reduced_dims(v, dim)
    div = n - (1.0 if correction is None else float(correction))
    if div <= 0:
        raise Unsupported("var_mean of %d values with correction %s" % (n, correction))
    loc = node.name
    mean = em.sum_reduce(loc + ".mean", loc + "_mean", [v], keep,
                         lambda bb, a: bb.mul(a[0], bb.cf(1.0 / n)))
    var = em.sum_reduce(loc + ".var", loc + "_var", [v, mean], keep,
                        lambda bb, a: bb.mul(_square_dev(bb, a), bb.cf(1.0 / div)),
                        extra_maps=[amap(r, ["d%d" % d for d in keep])])
    if keepdim:
        shape = [1 if d in red else v.shape[d] for d in range(r)]
        var = em.reshape(loc + ".var.view", loc + "_var_k", var, shape)
        mean = em.reshape(loc + ".mean.view", loc + "_mean_k", mean, shape)
    return (var, mean)


@lowers("aten.native_batch_norm.default")
def native_batch_norm(em, node, x, w, b, rm, rv, training, momentum, eps):
    if not training:
        raise Unsupported("batch norm in eval mode")
    xv = em.get(x)
    wv = em.get(w) if w is not None else None
    bv = em.get(b) if b is not None else None
    r = xv.rank
    m = xv.numel // xv.shape[1]
    loc = node.name
    cm = em.channel_map(r)
    mean = em.sum_reduce(loc + ".mean", loc + "_mean", [xv], [1],
                         lambda bb, a: bb.mul(a[0], bb.cf(1.0 / m)))
    var = em.sum_reduce(loc + ".var", loc + "_var", [xv, mean], [1], _square_dev,
                        extra_maps=[cm])

    def inv_body(bb, a):
        v = bb.add(bb.mul(a[0], bb.cf(1.0 / m)), bb.cf(float(eps)))
        return bb.un("math.rsqrt", v)
    invstd = em.ewise(loc + ".invstd", loc + "_invstd", [var], inv_body)
    ins = [xv, mean, invstd] + ([wv] if wv else []) + ([bv] if bv else [])
    e = em.f.empty(loc, xv.shape, loc)
    maps = [identity_map(r)] + [cm] * (len(ins) - 1) + [identity_map(r)]

    def out_body(bb, a, o):
        y = bb.mul(bb.sub(a[0], a[1]), a[2])
        k = 3
        if wv:
            y = bb.mul(y, a[k])
            k += 1
        if bv:
            y = bb.add(y, a[k])
        return [y]
    em._work(loc, xv.numel * 4)
    out = em.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, out_body)
    return (out, mean, invstd)


@lowers("aten._native_batch_norm_legit_functional.default")
def native_batch_norm_functional(em, node, x, w, b, rm, rv, training, momentum, eps):
    """native_batch_norm with the running statistics' updates as results
    (the functional form AOTAutograd traces): they are not part of the
    step's results, so nothing reads them."""
    out, mean, invstd = native_batch_norm(em, node, x, w, b, rm, rv, training, momentum, eps)
    return (out, mean, invstd, None, None)


@lowers("aten.native_batch_norm_backward.default")
def native_batch_norm_backward(em, node, dy, x, w, rm, rv, save_mean, save_invstd, train,
                               eps, mask):
    if not train:
        raise Unsupported("batch norm backward in eval mode")
    dyv, xv = em.get(dy), em.get(x)
    wv = em.get(w) if w is not None else None
    mean, invstd = em.get(save_mean), em.get(save_invstd)
    r = xv.rank
    m = xv.numel // xv.shape[1]
    loc = node.name
    cm = em.channel_map(r)
    gsum = em.sum_reduce(loc + ".sum", loc + "_sum", [dyv], [1], lambda bb, a: a[0])
    dot = em.sum_reduce(loc + ".dot", loc + "_dot", [dyv, xv, mean], [1],
                        lambda bb, a: bb.mul(a[0], bb.sub(a[1], a[2])), extra_maps=[None, cm])
    gi = gw = gb = None
    if mask[0]:
        ins = [dyv, xv, mean, invstd, gsum, dot] + ([wv] if wv else [])
        e = em.f.empty(loc, xv.shape, loc)
        maps = [identity_map(r)] * 2 + [cm] * (len(ins) - 2) + [identity_map(r)]

        def gi_body(bb, a, o):
            dyv_, x_, mu, inv, s, d = a[:6]
            xhat = bb.mul(bb.sub(x_, mu), inv)
            proj = bb.mul(xhat, bb.mul(d, inv))         # xhat * sum(dy*xhat)
            t = bb.sub(bb.sub(dyv_, bb.mul(s, bb.cf(1.0 / m))), bb.mul(proj, bb.cf(1.0 / m)))
            scale = bb.mul(inv, a[6]) if wv else inv
            return [bb.mul(t, scale)]
        em._work(loc, xv.numel * 8)
        gi = em.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, gi_body)
    if mask[1] and wv is not None:
        gw = em.ewise(loc + ".gw", loc + "_gw", [dot, invstd],
                      lambda bb, a: bb.mul(a[0], a[1]))
    if mask[2] and wv is not None:
        gb = gsum
    return (gi, gw, gb)


def _layer_maps(r, k):
    """Maps reading a [outer] statistic and a [normalized] weight in the
    rank-r domain whose trailing k dims are normalized."""
    return amap(r, ["d%d" % d for d in range(r - k)]), amap(r, ["d%d" % d for d in range(r - k, r)])


@lowers("aten.native_layer_norm.default")
def native_layer_norm(em, node, x, normalized_shape, w, b, eps):
    xv = em.get(x)
    r = xv.rank
    k = len(normalized_shape)
    outer = list(range(r - k))
    m = math.prod(xv.shape[r - k:])
    loc = node.name
    om, nm = _layer_maps(r, k)
    mean = em.sum_reduce(loc + ".mean", loc + "_mean", [xv], outer,
                         lambda bb, a: bb.mul(a[0], bb.cf(1.0 / m)))
    var = em.sum_reduce(loc + ".var", loc + "_var", [xv, mean], outer, _square_dev,
                        extra_maps=[om])
    rstd = em.ewise(loc + ".rstd", loc + "_rstd", [var], lambda bb, a: bb.un(
        "math.rsqrt", bb.add(bb.mul(a[0], bb.cf(1.0 / m)), bb.cf(float(eps)))))
    ins = [xv, mean, rstd] + ([em.get(w)] if w is not None else []) + \
          ([em.get(b)] if b is not None else [])
    e = em.f.empty(loc, xv.shape, loc)
    maps = [identity_map(r), om, om] + [nm] * (len(ins) - 3) + [identity_map(r)]

    def body(bb, a, o):
        y = bb.mul(bb.sub(a[0], a[1]), a[2])
        i = 3
        if w is not None:
            y = bb.mul(y, a[i])
            i += 1
        if b is not None:
            y = bb.add(y, a[i])
        return [y]
    em._work(loc, xv.numel * 4)
    out = em.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, body)
    kshape = xv.shape[:r - k] + [1] * k
    return (out, em.reshape(loc + ".mean.view", loc + "_mean_k", mean, kshape),
            em.reshape(loc + ".rstd.view", loc + "_rstd_k", rstd, kshape))


@lowers("aten.native_layer_norm_backward.default")
def native_layer_norm_backward(em, node, dy, x, normalized_shape, mean, rstd, w, b, mask):
    dyv, xv = em.get(dy), em.get(x)
    r = xv.rank
    k = len(normalized_shape)
    outer = list(range(r - k))
    m = math.prod(xv.shape[r - k:])
    loc = node.name
    om, nm = _layer_maps(r, k)
    mu = em.reshape(loc + ".mean.view", loc + "_mu", em.get(mean), xv.shape[:r - k])
    rs = em.reshape(loc + ".rstd.view", loc + "_rs", em.get(rstd), xv.shape[:r - k])
    wv = em.get(w) if w is not None else None
    ins = [dyv, xv, mu, rs] + ([wv] if wv else [])
    emaps = [None, om, om] + ([nm] if wv else [])

    def wdy(bb, a):
        return bb.mul(a[0], a[4]) if wv else a[0]
    s1 = em.sum_reduce(loc + ".sum", loc + "_s1", ins, outer, wdy, extra_maps=emaps)
    s2 = em.sum_reduce(loc + ".dot", loc + "_s2", ins, outer,
                       lambda bb, a: bb.mul(wdy(bb, a), bb.mul(bb.sub(a[1], a[2]), a[3])),
                       extra_maps=emaps)
    gi = gw = gb = None
    if mask[0]:
        gins = ins + [s1, s2]
        e = em.f.empty(loc, xv.shape, loc)
        maps = [identity_map(r)] * 2 + [om, om] + ([nm] if wv else []) + [om, om, identity_map(r)]

        def body(bb, a, o):
            xhat = bb.mul(bb.sub(a[1], a[2]), a[3])
            wd = bb.mul(a[0], a[4]) if wv else a[0]
            s1_, s2_ = a[-2], a[-1]
            t = bb.sub(bb.sub(wd, bb.mul(s1_, bb.cf(1.0 / m))), bb.mul(xhat, bb.mul(s2_, bb.cf(1.0 / m))))
            return [bb.mul(t, a[3])]
        em._work(loc, xv.numel * 8)
        gi = em.f.generic(loc, loc, gins, [e], maps, ["parallel"] * r, body)
    inner = list(range(r - k, r))
    if mask[1] and wv is not None:
        gw = em.sum_reduce(loc + ".gw", loc + "_gw", [dyv, xv, mu, rs], inner,
                           lambda bb, a: bb.mul(a[0], bb.mul(bb.sub(a[1], a[2]), a[3])),
                           extra_maps=[None, om, om])
    if mask[2] and b is not None:
        gb = em.sum_reduce(loc + ".gb", loc + "_gb", [dyv], inner, lambda bb, a: a[0])
    return (gi, gw, gb)
