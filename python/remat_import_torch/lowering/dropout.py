# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Dropout's ops: empty_like and the bernoulli_ that fills it."""

import math

from ..argfill import HASH_A, HASH_C, HASH_MASK, arg_seed
from ..values import LazyEmpty
from .registry import lowers


@lowers("aten.empty_like.default")
def empty_like(em, node, x, **kw):
    """Lazy: materialized only if something reads it (bernoulli_ only
    takes its shape)."""
    return LazyEmpty(node.name, em._shape_of(x))


@lowers("aten.bernoulli_.float")
def bernoulli_(em, node, x, p=0.5, generator=None):
    """A hash of the element index, a per-op seed and the step's %seed
    argument (harness.dropout_mask); never recomputed (remat.policy keep),
    so the mask is drawn once per step."""
    shape, elt = em._shape_of(x)
    em.seed += 1
    em.mask_seeds[node.name] = em.seed  # so references draw the same mask
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
    return em.ewise(node.name, node.name, [em.step_seed()], body, out_shape=shape,
                    attrs="remat.policy = #remat.policy<keep>")
