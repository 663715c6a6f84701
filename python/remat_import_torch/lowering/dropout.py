# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Random masks: dropout (native_dropout and its backward) and the
bernoulli draws of stochastic depth (into empty_like / new_empty_strided)."""

import math

from ..argfill import HASH_A, HASH_C, HASH_MASK, arg_seed
from ..values import LazyEmpty
from .registry import Unsupported, lowers


@lowers("aten.empty_like.default")
def empty_like(em, node, x, **kw):
    """Lazy: materialized only if something reads it (bernoulli_ only
    takes its shape)."""
    return LazyEmpty(node.name, em._shape_of(x))


@lowers("aten.new_empty_strided.default")
def new_empty_strided(em, node, x, size, stride, **kw):
    """empty_like of another shape (row-major strides only)."""
    size = list(size)
    if list(stride) != [math.prod(size[i + 1:]) for i in range(len(size))]:
        raise Unsupported("new_empty_strided with strides %s" % list(stride))
    return LazyEmpty(node.name, (size, em._shape_of(x)[1]))


@lowers("aten.copy.default")
def copy(em, node, dst, src, non_blocking=False):
    """The functional copy_: src, in dst's shape."""
    shape = em._shape_of(dst)[0]
    v = em.get(src)
    if v.shape == shape:
        return v
    return em.ewise(node.name, node.name, [v], lambda bb, a: a[0], out_shape=shape)


@lowers("aten.bernoulli_.float")
@lowers("aten.bernoulli.p")
def bernoulli_(em, node, x, p=0.5, generator=None):
    """A hash of the element index, a per-op seed and the step's %seed
    argument (harness.dropout_mask); never recomputed (remat.policy keep),
    so the mask is drawn once per step."""
    shape, elt = em._shape_of(x)
    return _mask(em, node.name, node.name, shape, p)


@lowers("aten.native_dropout.default")
def native_dropout(em, node, x, p, train=True):
    """(x * mask / (1 - p), mask): the mask keeps an element with
    probability 1 - p (bernoulli_'s hash, so `check`'s reference draws the
    same); it is returned as 0.0/1.0 in f32, which native_dropout_backward
    reads."""
    if train is False:
        raise Unsupported("native_dropout in eval mode")
    v = em.get(x)
    if float(p) >= 1.0:
        raise Unsupported("native_dropout with p = %s" % p)
    mask = _mask(em, node.name, node.name + ".mask", v.shape, 1.0 - float(p),
                 base=node.name + "_mask")
    scale = 1.0 / (1.0 - float(p))
    out = em.ewise(node.name, node.name, [v, mask],
                   lambda bb, a: bb.mul(bb.mul(a[0], a[1]), bb.cf(scale)))
    return (out, mask)


@lowers("aten.native_dropout_backward.default")
def native_dropout_backward(em, node, g, mask, scale):
    gv, mv = em.get(g), em.get(mask)

    def body(bb, a):
        m = a[1] if mv.elt == "f32" else bb.select(a[1], bb.cf(1.0), bb.cf(0.0))
        return bb.mul(bb.mul(a[0], m), bb.cf(float(scale)))
    return em.ewise(node.name, node.name, [gv, mv], body)


def _mask(em, key, loc, shape, p, base=None):
    """1.0 with probability p, else 0.0 (the k-th mask of the step)."""
    em.seed += 1
    em.mask_seeds[key] = em.seed  # so references draw the same mask
    seed = arg_seed(em.seed)
    r = len(shape)
    strides = [math.prod(shape[i + 1:]) for i in range(r)]
    expr = " + ".join("d%d * %d" % (i, s) for i, s in enumerate(strides)) or "0"

    def body(bb, a):
        idx = [bb.index(i) for i in range(r)]
        lin = bb.apply(expr, idx)
        l64 = bb.cast_index(lin, "i64")
        step = bb.bin("arith.andi", bb.bin("arith.muli", a[0], bb.ci(HASH_C, "i64"), "i64"),
                      bb.ci(HASH_MASK, "i64"), "i64")
        h = bb.bin("arith.addi", bb.bin("arith.muli", l64, bb.ci(HASH_A, "i64"), "i64"),
                   bb.bin("arith.addi", bb.ci(seed, "i64"), step, "i64"), "i64")
        h = bb.bin("arith.andi", h, bb.ci(0xFFFFFFFF, "i64"), "i64")
        h = bb.bin("arith.xori", h, bb.bin("arith.shrui", h, bb.ci(15, "i64"), "i64"), "i64")
        h = bb.bin("arith.andi", bb.bin("arith.muli", h, bb.ci(0x6C8E9CF5, "i64"), "i64"),
                   bb.ci(0xFFFFFFFF, "i64"), "i64")
        h = bb.bin("arith.xori", h, bb.bin("arith.shrui", h, bb.ci(13, "i64"), "i64"), "i64")
        u = bb.emit("arith.uitofp %s : i64 to f32" % bb.bin("arith.shrui", h, bb.ci(8, "i64"), "i64"))
        u = bb.mul(u, bb.cf(2.0 ** -24))
        keep = bb.cmpf("olt", u, bb.cf(float(p)))
        return bb.select(keep, bb.cf(1.0), bb.cf(0.0))
    return em.ewise(loc, base or loc, [em.step_seed()], body, out_shape=shape,
                    attrs="remat.policy = #remat.policy<keep>")
