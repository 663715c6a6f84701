# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Matrix products (mm, bmm, addmm, baddbmm): linalg.matmul / batch_matmul, or a
generic reading a transposed operand through its indexing map."""

from ..graph import meta_shape
from ..mlir import amap, matmul_op
from .registry import Unsupported, lowers


def matmul(em, loc, base, a_node, b_node, shape, init=None, batch=False):
    """init + a @ b (2-D, or batched 3-D; init(elt) as Builder.product takes
    it, zeros by default); transposed operands are read through the indexing
    map instead of being materialized."""
    a, pa = em.operand_perm(a_node)
    b, pb = em.operand_perm(b_node)
    r = 3 if batch else 2
    swap = list(range(r - 2)) + [r - 1, r - 2]
    ta = pa == swap
    tb = pb == swap
    if pa is not None and not ta:
        a, ta = em.get(a_node), False
    if pb is not None and not tb:
        b, tb = em.get(b_node), False
    bd = ["d0"] if batch else []
    i, jj, k = ("d1", "d2", "d3") if batch else ("d0", "d1", "d2")
    n = 4 if batch else 3
    am = amap(n, bd + ([k, i] if ta else [i, k]))
    bm = amap(n, bd + ([jj, k] if tb else [k, jj]))
    om = amap(n, bd + [i, jj])
    m_ = a.shape[-1] if ta else a.shape[-2]
    k_ = a.shape[-2] if ta else a.shape[-1]
    n_ = b.shape[-2] if tb else b.shape[-1]
    em._work(loc, 2.0 * m_ * n_ * k_ * (a.shape[0] if batch else 1))
    iters = (["parallel"] if batch else []) + ["parallel", "parallel", "reduction"]

    def build(acc, name, elt):
        if not ta and not tb:
            r_ = em.f.value(name, acc.shape, elt)
            opn = "linalg.batch_matmul" if batch else "linalg.matmul"
            return em.f.op([r_], matmul_op(opn, a, b, acc, r_), loc)
        return em.f.generic(name, loc, [a, b], [acc], [am, bm, om], iters,
                            lambda bb, x, o: [em.mac(bb, o[0], x[0], x[1], elt)])
    return em.product(loc, base, shape, k_, build, init)


@lowers("aten.mm.default")
def mm(em, node, a, b):
    return matmul(em, node.name, node.name, a, b, meta_shape(node)[0])


@lowers("aten.bmm.default")
def bmm(em, node, a, b):
    return matmul(em, node.name, node.name, a, b, meta_shape(node)[0], batch=True)


def _into_bias(em, node, bias, a, b, beta, alpha, batch):
    """bias (broadcast, the product's initial value) + a @ b."""
    if beta != 1 or alpha != 1:
        raise Unsupported("%s with beta/alpha" % node.target)
    shape = meta_shape(node)[0]
    bv = em.get(bias)

    def init(elt):
        """The bias broadcast to the result (extended to f64 when it is)."""
        if elt == "f32":
            return em.ewise(node.name + ".bias", node.name + "_init", [bv],
                            lambda bb, x: x[0], out_shape=shape)
        return em.ewise(node.name + ".bias", node.name + "_init64", [bv],
                        lambda bb, x: bb.emit("arith.extf %s : f32 to f64" % x[0]),
                        out_shape=shape, elt="f64")
    return matmul(em, node.name, node.name, a, b, shape, init, batch=batch)


@lowers("aten.addmm.default")
def addmm(em, node, bias, a, b, beta=1, alpha=1):
    return _into_bias(em, node, bias, a, b, beta, alpha, batch=False)


@lowers("aten.baddbmm.default")
def baddbmm(em, node, bias, a, b, beta=1, alpha=1):
    """Batched, as attention adds its mask."""
    return _into_bias(em, node, bias, a, b, beta, alpha, batch=True)
