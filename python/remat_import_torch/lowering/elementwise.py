# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Arithmetic on tensors and scalars, with numpy broadcasting."""

from ..graph import meta_shape
from ..mlir import V
from .registry import Unsupported, lowers

INT = ("i32", "i64")


def _binary(em, node, a, b, fn):
    ins = [em.get(a), em.get(b)]
    out = meta_shape(node)
    # An integer operand of a float result is promoted, as PyTorch does
    # (bilinear upsampling's weights: a coordinate minus its floor index).
    promote = [isinstance(x, V) and x.elt in INT and out and out[1] == "f32" for x in ins]
    if any(isinstance(x, V) and x.elt != "f32" and not p for x, p in zip(ins, promote)):
        raise Unsupported("non-f32 operands")

    def body(bb, x):
        x = [bb.emit("arith.sitofp %s : %s to f32" % (v, i.elt)) if p else v
             for v, i, p in zip(x, ins, promote)]
        return fn(bb, x[0], x[1])
    return em.ewise(node.name, node.name, ins, body, out_shape=out[0] if out else None)


@lowers("aten.add.Tensor", "aten.add.Scalar")
def add(em, node, a, b, alpha=1):
    if alpha != 1:
        return _binary(em, node, a, b, lambda bb, x, y: bb.add(x, bb.mul(y, bb.cf(alpha))))
    return _binary(em, node, a, b, lambda bb, x, y: bb.add(x, y))


@lowers("aten.sub.Tensor", "aten.sub.Scalar")
def sub(em, node, a, b, alpha=1):
    if alpha != 1:
        return _binary(em, node, a, b, lambda bb, x, y: bb.sub(x, bb.mul(y, bb.cf(alpha))))
    return _binary(em, node, a, b, lambda bb, x, y: bb.sub(x, y))


@lowers("aten.rsub.Scalar")
def rsub(em, node, a, b, alpha=1):
    return _binary(em, node, a, b, lambda bb, x, y: bb.sub(y, bb.mul(x, bb.cf(alpha))))


@lowers("aten.mul.Tensor", "aten.mul.Scalar")
def mul(em, node, a, b):
    return _binary(em, node, a, b, lambda bb, x, y: bb.mul(x, y))


@lowers("aten.div.Tensor", "aten.div.Scalar")
def div(em, node, a, b):
    return _binary(em, node, a, b, lambda bb, x, y: bb.div(x, y))


@lowers("aten.neg.default")
def neg(em, node, a):
    return em.ewise(node.name, node.name, [em.get(a)],
                    lambda bb, x: bb.un("arith.negf", x[0]))


def _unary(em, node, a, fn):
    v = em.get(a)
    if v.elt != "f32":
        raise Unsupported("non-f32 operand")
    return em.ewise(node.name, node.name, [v], lambda bb, x: fn(bb, x[0]))


@lowers("aten.pow.Tensor_Scalar")
def pow_scalar(em, node, a, e):
    """x ** e: products for small integer exponents (exact, and defined for
    negative x), sqrt / rsqrt for +-1/2, math.powf otherwise."""
    e = float(e)
    if e == int(e) and 0 <= abs(e) <= 4:
        n = int(abs(e))

        def body(bb, x):
            r = bb.cf(1.0) if n == 0 else x
            for _ in range(n - 1):
                r = bb.mul(r, x)
            return bb.div(bb.cf(1.0), r) if e < 0 else r
        return _unary(em, node, a, body)
    if e == 0.5:
        return _unary(em, node, a, lambda bb, x: bb.un("math.sqrt", x))
    if e == -0.5:
        return _unary(em, node, a, lambda bb, x: bb.un("math.rsqrt", x))
    return _unary(em, node, a, lambda bb, x: bb.bin("math.powf", x, bb.cf(e)))


@lowers("aten.rsqrt.default")
def rsqrt(em, node, a):
    return _unary(em, node, a, lambda bb, x: bb.un("math.rsqrt", x))


@lowers("aten.sqrt.default")
def sqrt(em, node, a):
    return _unary(em, node, a, lambda bb, x: bb.un("math.sqrt", x))


@lowers("aten.reciprocal.default")
def reciprocal(em, node, a):
    return _unary(em, node, a, lambda bb, x: bb.div(bb.cf(1.0), x))
