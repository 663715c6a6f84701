# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Softmax and log-softmax along one dim, and their backward ops."""

from ..mlir import amap, identity_map
from .builder import NEG_INF
from .registry import lowers


def _rowwise(xv, dim):
    """(dim, the kept dims, the map reading a per-row value)."""
    r = xv.rank
    dim %= r
    keep = [d for d in range(r) if d != dim]
    return dim, keep, amap(r, ["d%d" % d for d in keep])


def _max_and_sumexp(em, loc, xv, keep, km):
    """Row maxima and sum(exp(x - max)) along the reduced dimension: the
    numerically safe start of softmax and log-softmax."""
    mx = em.reduce(loc + ".max", loc + "_max", [xv], keep,
                   lambda bb, a, acc: bb.bin("arith.maximumf", acc, a[0]), init=NEG_INF)
    se = em.sum_reduce(loc + ".sum", loc + "_sum", [xv, mx], keep,
                       lambda bb, a: bb.un("math.exp", bb.sub(a[0], a[1])), extra_maps=[km])
    return mx, se


@lowers("aten._log_softmax.default")
def log_softmax(em, node, x, dim, half_to_float=False):
    xv = em.get(x)
    loc = node.name
    dim, keep, km = _rowwise(xv, dim)
    mx, se = _max_and_sumexp(em, loc, xv, keep, km)
    e = em.f.empty(loc, xv.shape, loc)
    em._work(loc, xv.numel * 3)
    return em.f.generic(loc, loc, [xv, mx, se], [e], [identity_map(xv.rank), km, km,
                                                     identity_map(xv.rank)],
                        ["parallel"] * xv.rank,
                        lambda bb, a, o: [bb.sub(bb.sub(a[0], a[1]), bb.un("math.log", a[2]))])


@lowers("aten._log_softmax_backward_data.default")
def log_softmax_backward(em, node, g, out, dim, dtype):
    gv, ov = em.get(g), em.get(out)
    loc = node.name
    dim, keep, km = _rowwise(gv, dim)
    s = em.sum_reduce(loc + ".sum", loc + "_sum", [gv], keep, lambda bb, a: a[0])
    e = em.f.empty(loc, gv.shape, loc)
    em._work(loc, gv.numel * 3)
    r = gv.rank
    return em.f.generic(loc, loc, [gv, ov, s], [e], [identity_map(r)] * 2 + [km, identity_map(r)],
                        ["parallel"] * r,
                        lambda bb, a, o: [bb.sub(a[0], bb.mul(bb.un("math.exp", a[1]), a[2]))])


@lowers("aten._softmax.default")
def softmax(em, node, x, dim, half_to_float=False):
    xv = em.get(x)
    loc = node.name
    dim, keep, km = _rowwise(xv, dim)
    mx, se = _max_and_sumexp(em, loc, xv, keep, km)
    e = em.f.empty(loc, xv.shape, loc)
    r = xv.rank
    em._work(loc, xv.numel * 3)
    return em.f.generic(loc, loc, [xv, mx, se], [e], [identity_map(r), km, km, identity_map(r)],
                        ["parallel"] * r,
                        lambda bb, a, o: [bb.div(bb.un("math.exp", bb.sub(a[0], a[1])), a[2])])


@lowers("aten._softmax_backward_data.default")
def softmax_backward(em, node, g, out, dim, dtype):
    gv, ov = em.get(g), em.get(out)
    loc = node.name
    dim, keep, km = _rowwise(gv, dim)
    s = em.sum_reduce(loc + ".sum", loc + "_sum", [gv, ov], keep,
                      lambda bb, a: bb.mul(a[0], a[1]))
    e = em.f.empty(loc, gv.shape, loc)
    r = gv.rank
    em._work(loc, gv.numel * 2)
    return em.f.generic(loc, loc, [gv, ov, s], [e], [identity_map(r)] * 2 + [km, identity_map(r)],
                        ["parallel"] * r,
                        lambda bb, a, o: [bb.mul(a[1], bb.sub(a[0], a[2]))])
