# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Indexing by integer tensors along adjacent dims (swin's relative
position bias: a table read at a buffer of indices; nearest and bilinear
upsampling: the rows and columns read) and its backward, an accumulating
index_put; padding by constants, slice_scatter, comparisons with scalars
and masked_fill."""

import math

from ..graph import meta_shape
from ..mlir import amap, identity_map
from .registry import Unsupported, lowers

INT = ("i32", "i64")


def _index_tensors(indices):
    """(first dim, the index tensors) of indices = [None]*first + [idx...]:
    adjacent index tensors after leading full dims (swin's table rows: one
    on dim 0; nearest and bilinear upsampling: one per spatial dim)."""
    first = 0
    while first < len(indices) and indices[first] is None:
        first += 1
    idx = list(indices[first:])
    while idx and idx[-1] is None:
        idx.pop()
    if not idx or any(i is None for i in idx):
        raise Unsupported("index with %d index tensors not adjacent" % len(indices))
    return first, idx


def _index_values(em, idx):
    vs = [em.get(i) for i in idx]
    for v in vs:
        if v.elt not in INT:
            raise Unsupported("index by a %s tensor" % v.elt)
    return vs


def _bcast_dims(v, shape, offset):
    """The affine results reading v broadcast (numpy rules) to `shape`,
    whose dims are d<offset>...: the index tensors over their common shape."""
    k = len(shape) - v.rank
    return ["0" if (d == 1 and shape[k + i] != 1) else "d%d" % (offset + k + i)
            for i, d in enumerate(v.shape)]


@lowers("aten.index.Tensor")
def index(em, node, x, indices):
    """out[f..., p..., r...] = x[f..., idx_0[p...], ..., idx_k[p...], r...]:
    x read with tensor.extract inside a generic over the result, the index
    tensors broadcast over p (PyTorch checks the indices)."""
    xv = em.get(x)
    first, idx = _index_tensors(indices)
    ivs = _index_values(em, idx)
    shape = meta_shape(node)[0]
    r = len(shape)
    q = r - (xv.rank - len(ivs))               # rank of the broadcast index shape
    e = em.f.empty(node.name, shape, node.name, xv.elt)
    em._work(node.name, math.prod(shape))

    def body(b, a, o):
        at = [b.emit("arith.index_cast %s : %s to index" % (a[j], iv.elt))
              for j, iv in enumerate(ivs)]
        lead = [b.index(d) for d in range(first)]
        rest = [b.index(d) for d in range(first + q, r)]
        return [b.emit("tensor.extract %s[%s] : %s" % (xv.ssa, ", ".join(lead + at + rest),
                                                       xv.ty))]
    return em.f.generic(node.name, node.name, ivs, [e],
                        [amap(r, _bcast_dims(iv, shape[first:first + q], first))
                         for iv in ivs] + [identity_map(r)],
                        ["parallel"] * r, body)


@lowers("aten.index_put.default", "aten._unsafe_index_put.default")
def index_put(em, node, base, indices, values, accumulate=False):
    """accumulate: out[f..., v..., r...] = base[f..., v..., r...] + the sum
    over p with idx_j[p] == v_j for every j of values[f..., p..., r...]
    (index's backward): a reduction over the positions for every element
    of base, O(base * positions), like embedding's backward."""
    if not accumulate:
        raise Unsupported("index_put without accumulate")
    bv, vv = em.get(base), em.get(values)
    first, idx = _index_tensors(indices)
    ivs = _index_values(em, idx)
    k, rb = len(ivs), bv.rank
    q = vv.rank - (rb - k)
    if q < 0 or vv.shape[:first] + vv.shape[first + q:] != bv.shape[:first] + bv.shape[first + k:]:
        raise Unsupported("index_put of broadcast values")
    n = rb + q                                 # (base dims..., p...)
    ps = ["d%d" % (rb + d) for d in range(q)]
    vmap = ["d%d" % d for d in range(first)] + ps + ["d%d" % d for d in range(first + k, rb)]
    em._work(node.name, bv.numel * math.prod(vv.shape[first:first + q]))

    def body(b, a, o):
        hit = None
        for j, iv in enumerate(ivs):
            v = b.emit("arith.index_cast %s : index to %s" % (b.index(first + j), iv.elt))
            eq = b.cmpi("eq", a[1 + j], v, iv.elt)
            hit = eq if hit is None else b.andi(hit, eq)
        return [b.select(hit, b.add(o[0], a[0]), o[0])]
    return em.f.generic(node.name, node.name, [vv] + ivs, [bv],
                        [amap(n, vmap)] +
                        [amap(n, _bcast_dims(iv, vv.shape[first:first + q], rb)) for iv in ivs] +
                        [amap(n, ["d%d" % d for d in range(rb)])],
                        ["parallel"] * rb + ["reduction"] * q, body)


@lowers("aten.constant_pad_nd.default")
def constant_pad_nd(em, node, x, pad, value=0.0):
    """pad = [low, high] of the last dim, then of the one before, ...;
    negative amounts crop (an extract_slice), positive ones pad."""
    v = em.get(x)
    k = len(pad) // 2
    lows = [pad[2 * (k - 1 - i)] for i in range(k)]
    highs = [pad[2 * (k - 1 - i) + 1] for i in range(k)]
    lead = v.rank - k
    if any(l < 0 for l in lows) or any(h < 0 for h in highs):
        offs = [0] * lead + [max(0, -l) for l in lows]
        sizes = v.shape[:lead] + [v.shape[lead + i] - max(0, -lows[i]) - max(0, -highs[i])
                                  for i in range(k)]
        v = em.extract(node.name + ".crop", node.name + "_crop", v, offs, sizes, [1] * v.rank)
        lows = [max(0, l) for l in lows]
        highs = [max(0, h) for h in highs]
    if not any(lows) and not any(highs):
        return v
    return em.pad(node.name, node.name, v, lows, highs, float(value))


@lowers("aten.slice_scatter.default")
def slice_scatter(em, node, base, src, dim=0, start=None, end=None, step=1):
    """base with base[start:end:step] along dim replaced by src."""
    bv, sv = em.get(base), em.get(src)
    dim %= bv.rank
    n = bv.shape[dim]
    start = 0 if start is None else (start + n if start < 0 else min(start, n))
    offs = [0] * bv.rank
    offs[dim] = start
    st = [1] * bv.rank
    st[dim] = step
    if sv.shape == bv.shape and step == 1 and start == 0:
        return sv
    return em.insert(node.name, node.name, sv, bv, offs, sv.shape, st)


@lowers("aten.select_scatter.default")
def select_scatter(em, node, base, src, dim, index):
    """base with index `index` along dim replaced by src (one rank less)."""
    bv, sv = em.get(base), em.get(src)
    dim %= bv.rank
    offs = [0] * bv.rank
    offs[dim] = index % bv.shape[dim]
    sizes = list(bv.shape)
    sizes[dim] = 1
    return em.insert(node.name, node.name, sv, bv, offs, sizes, [1] * bv.rank)


@lowers("aten.fill.Tensor")
def fill_tensor(em, node, x, value):
    """x's shape filled with a 0-d tensor's value."""
    shape, elt = meta_shape(node)
    vv = em.get(value)
    if vv.rank != 0 or vv.elt != elt:
        raise Unsupported("fill with a %s" % vv.ty)
    return em.ewise(node.name, node.name, [vv], lambda b, a: a[0], out_shape=shape, elt=elt)


def _compare(em, node, x, y, fpred, ipred):
    v = em.get(x)
    if hasattr(y, "op") or not isinstance(y, (int, float)):
        raise Unsupported("comparison with a tensor")
    if v.elt == "f32":
        return em.ewise(node.name, node.name, [v],
                        lambda b, a: b.cmpf(fpred, a[0], b.cf(float(y))), elt="i1")
    if v.elt in INT:
        return em.ewise(node.name, node.name, [v],
                        lambda b, a: b.cmpi(ipred, a[0], b.ci(int(y), v.elt), v.elt), elt="i1")
    raise Unsupported("comparison of %s" % v.elt)


@lowers("aten.eq.Scalar")
def eq(em, node, x, y):
    return _compare(em, node, x, y, "oeq", "eq")


@lowers("aten.ge.Scalar")
def ge(em, node, x, y):
    return _compare(em, node, x, y, "oge", "sge")


@lowers("aten.gt.Scalar")
def gt(em, node, x, y):
    return _compare(em, node, x, y, "ogt", "sgt")


@lowers("aten.lt.Scalar")
def lt(em, node, x, y):
    return _compare(em, node, x, y, "olt", "slt")


@lowers("aten.le.Scalar")
def le(em, node, x, y):
    return _compare(em, node, x, y, "ole", "sle")


@lowers("aten.ne.Scalar")
def ne(em, node, x, y):
    return _compare(em, node, x, y, "une", "ne")


@lowers("aten.masked_fill.Scalar")
def masked_fill(em, node, x, mask, value):
    """x where mask is false, value where true (the mask broadcast)."""
    xv, mv = em.get(x), em.get(mask)
    if mv.elt != "i1" or xv.elt != "f32":
        raise Unsupported("masked_fill of %s by %s" % (xv.elt, mv.elt))
    shape = meta_shape(node)[0]
    return em.ewise(node.name, node.name, [xv, mv],
                    lambda b, a: b.select(a[1], b.cf(float(value)), a[0]), out_shape=shape)


@lowers("aten.where.self")
def where(em, node, cond, x, y):
    """x where cond, else y (all three broadcast to the result)."""
    cv, xv, yv = em.get(cond), em.get(x), em.get(y)
    if cv.elt != "i1" or xv.elt != "f32" or yv.elt != "f32":
        raise Unsupported("where of %s, %s by %s" % (xv.elt, yv.elt, cv.elt))
    shape = meta_shape(node)[0]
    return em.ewise(node.name, node.name, [cv, xv, yv],
                    lambda b, a: b.select(a[0], a[1], a[2]), out_shape=shape)


def _logical(em, node, ins, fn):
    vs = [em.get(x) for x in ins]
    if any(v.elt != "i1" for v in vs):
        raise Unsupported("bitwise op on %s" % ", ".join(v.elt for v in vs))
    out = meta_shape(node)
    return em.ewise(node.name, node.name, vs, lambda b, a: fn(b, *a), elt="i1",
                    out_shape=out[0] if out else None)


@lowers("aten.bitwise_and.Tensor", "aten.logical_and.default")
def bitwise_and(em, node, x, y):
    """Masks (i1) combined: transformers' causal and padding masks."""
    return _logical(em, node, [x, y], lambda b, p, q: b.andi(p, q))


@lowers("aten.bitwise_or.Tensor", "aten.logical_or.default")
def bitwise_or(em, node, x, y):
    return _logical(em, node, [x, y], lambda b, p, q: b.bin("arith.ori", p, q, "i1"))


@lowers("aten.bitwise_not.default", "aten.logical_not.default")
def bitwise_not(em, node, x):
    return _logical(em, node, [x], lambda b, p: b.bin("arith.xori", p, b.ci(1, "i1"), "i1"))


@lowers("aten.gather.default")
def gather(em, node, x, dim, idx, sparse_grad=False):
    """out[i] = x[i with dim replaced by idx[i]]: a generic over the index
    reading x with tensor.extract (BERT's token type ids by position)."""
    xv, iv = em.get(x), em.get(idx)
    if iv.elt not in INT:
        raise Unsupported("gather by a %s tensor" % iv.elt)
    r = iv.rank
    if xv.rank != r:
        raise Unsupported("gather of rank %d by rank %d" % (xv.rank, r))
    dim = dim % r
    e = em.f.empty(node.name, iv.shape, node.name, xv.elt)
    em._work(node.name, iv.numel)

    def body(b, a, o):
        at = b.emit("arith.index_cast %s : %s to index" % (a[0], iv.elt))
        ix = [at if d == dim else b.index(d) for d in range(r)]
        return [b.emit("tensor.extract %s[%s] : %s" % (xv.ssa, ", ".join(ix), xv.ty))]
    return em.f.generic(node.name, node.name, [iv], [e], [identity_map(r), identity_map(r)],
                        ["parallel"] * r, body)
