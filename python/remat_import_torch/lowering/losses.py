# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The negative log-likelihood loss (cross-entropy is log-softmax + NLL)."""

from ..mlir import amap, float_text
from .registry import Unsupported, lowers


def _nll_scale(reduction, n):
    if reduction == 1:
        return 1.0 / n
    if reduction == 2:
        return 1.0
    raise Unsupported("nll_loss without reduction")


@lowers("aten.nll_loss_forward.default")
def nll_loss_forward(em, node, x, target, weight, reduction, ignore_index):
    if weight is not None:
        raise Unsupported("nll_loss with class weights")
    xv, tv = em.get(x), em.get(target)
    if xv.rank != 2:
        raise Unsupported("nll_loss on %d-D input" % xv.rank)
    loc = node.name
    n = xv.shape[0]
    c = _nll_scale(reduction, n)
    z = em.f.filled(loc, [], loc)
    maps = [amap(2, ["d0", "d1"]), amap(2, ["d0"]), amap(2, [])]

    def body(bb, a, o):
        k = bb.cast_index(bb.index(1), tv.elt)
        hit = bb.cmpi("eq", a[1], k, tv.elt)
        v = bb.select(hit, bb.mul(a[0], bb.cf(-c)), bb.cf(0.0))
        return [bb.add(o[0], v)]
    em._work(loc, xv.numel)
    loss = em.f.generic(loc, loc, [xv, tv], [z], maps, ["reduction", "reduction"], body)
    # total_weight: the number of samples (no class weights, no ignored labels).
    tw = em.f.value(loc + "_total_weight", [])
    em.f.const_lines.append("  %s = arith.constant dense<%s> : tensor<f32> loc(\"%s\")"
                            % (tw.ssa, float_text(float(n)), loc + ".total_weight"))
    return (loss, tw)


@lowers("aten.nll_loss_backward.default")
def nll_loss_backward(em, node, g, x, target, weight, reduction, ignore_index, total_weight):
    if weight is not None:
        raise Unsupported("nll_loss with class weights")
    gv, xv, tv = em.get(g), em.get(x), em.get(target)
    loc = node.name
    c = _nll_scale(reduction, xv.shape[0])
    e = em.f.empty(loc, xv.shape, loc)
    maps = [amap(2, []), amap(2, ["d0"]), amap(2, ["d0", "d1"])]

    def body(bb, a, o):
        k = bb.cast_index(bb.index(1), tv.elt)
        hit = bb.cmpi("eq", a[1], k, tv.elt)
        return [bb.select(hit, bb.mul(a[0], bb.cf(-c)), bb.cf(0.0))]
    em._work(loc, xv.numel)
    return em.f.generic(loc, loc, [gv, tv], [e], maps, ["parallel", "parallel"], body)
