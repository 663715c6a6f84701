# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Activation functions and their backward ops (elementwise generics)."""

from .registry import Unsupported, lowers


@lowers("aten.relu.default")
def relu(em, node, a):
    return em.ewise(node.name, node.name, [em.get(a)],
                    lambda bb, x: bb.bin("arith.maximumf", x[0], bb.cf(0.0)))


@lowers("aten.threshold_backward.default")
def threshold_backward(em, node, g, x, threshold):
    def body(bb, a):
        keep = bb.cmpf("ogt", a[1], bb.cf(float(threshold)))
        return bb.select(keep, a[0], bb.cf(0.0))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.hardtanh.default")
def hardtanh(em, node, x, lo=-1.0, hi=1.0):
    def body(bb, a):
        return bb.bin("arith.minimumf", bb.bin("arith.maximumf", a[0], bb.cf(lo)), bb.cf(hi))
    return em.ewise(node.name, node.name, [em.get(x)], body)


@lowers("aten.hardtanh_backward.default")
def hardtanh_backward(em, node, g, x, lo, hi):
    def body(bb, a):
        in_lo = bb.cmpf("ogt", a[1], bb.cf(lo))
        in_hi = bb.cmpf("olt", a[1], bb.cf(hi))
        return bb.select(bb.andi(in_lo, in_hi), a[0], bb.cf(0.0))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.leaky_relu.default")
def leaky_relu(em, node, x, slope=0.01):
    def body(bb, a):
        pos = bb.cmpf("ogt", a[0], bb.cf(0.0))
        return bb.select(pos, a[0], bb.mul(a[0], bb.cf(float(slope))))
    return em.ewise(node.name, node.name, [em.get(x)], body)


@lowers("aten.leaky_relu_backward.default")
def leaky_relu_backward(em, node, g, x, slope, self_is_result):
    def body(bb, a):
        pos = bb.cmpf("ogt", a[1], bb.cf(0.0))
        return bb.select(pos, a[0], bb.mul(a[0], bb.cf(float(slope))))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.clamp.default")
def clamp(em, node, x, lo=None, hi=None):
    """Scalar bounds (swin_v2's logit scale, max = log 100); each may be
    None."""
    if any(hasattr(b, "op") for b in (lo, hi)):
        raise Unsupported("clamp with tensor bounds")

    def body(bb, a):
        v = a[0]
        if lo is not None:
            v = bb.bin("arith.maximumf", v, bb.cf(float(lo)))
        if hi is not None:
            v = bb.bin("arith.minimumf", v, bb.cf(float(hi)))
        return v
    return em.ewise(node.name, node.name, [em.get(x)], body)


@lowers("aten.clamp_min.default")
def clamp_min(em, node, x, lo):
    """F.normalize's denominator, max(norm, eps)."""
    return clamp(em, node, x, lo, None)


@lowers("aten.exp.default")
def exp(em, node, x):
    return em.ewise(node.name, node.name, [em.get(x)], lambda bb, a: bb.un("math.exp", a[0]))


@lowers("aten.log1p.default")
def log1p(em, node, x):
    """log(1 + x), exact near 0 (softplus and mish decompose to it)."""
    return em.ewise(node.name, node.name, [em.get(x)], lambda bb, a: bb.un("math.log1p", a[0]))


@lowers("aten.expm1.default")
def expm1(em, node, x):
    """exp(x) - 1, exact near 0 (elu decomposes to it)."""
    return em.ewise(node.name, node.name, [em.get(x)], lambda bb, a: bb.un("math.expm1", a[0]))


@lowers("aten.sigmoid.default")
def sigmoid(em, node, x):
    def body(bb, a):
        e = bb.un("math.exp", bb.un("arith.negf", a[0]))
        return bb.div(bb.cf(1.0), bb.add(bb.cf(1.0), e))
    return em.ewise(node.name, node.name, [em.get(x)], body)


@lowers("aten.sigmoid_backward.default")
def sigmoid_backward(em, node, g, y):
    def body(bb, a):
        return bb.mul(a[0], bb.mul(a[1], bb.sub(bb.cf(1.0), a[1])))
    return em.ewise(node.name, node.name, [em.get(g), em.get(y)], body)


@lowers("aten.tanh.default")
def tanh(em, node, x):
    return em.ewise(node.name, node.name, [em.get(x)],
                    lambda bb, a: bb.un("math.tanh", a[0]))


@lowers("aten.tanh_backward.default")
def tanh_backward(em, node, g, y):
    def body(bb, a):
        return bb.mul(a[0], bb.sub(bb.cf(1.0), bb.mul(a[1], a[1])))
    return em.ewise(node.name, node.name, [em.get(g), em.get(y)], body)


def _erf(bb, x):
    """erf(x), Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): arith and
    math.exp only, since math.erf has no lowering to LLVM."""
    ax = bb.un("math.absf", x)
    t = bb.div(bb.cf(1.0), bb.add(bb.cf(1.0), bb.mul(ax, bb.cf(0.3275911))))
    poly = bb.cf(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = bb.add(bb.mul(poly, t), bb.cf(c))
    poly = bb.mul(poly, t)
    e = bb.un("math.exp", bb.un("arith.negf", bb.mul(ax, ax)))
    y = bb.sub(bb.cf(1.0), bb.mul(poly, e))
    return bb.emit("math.copysign %s, %s : f32" % (y, x))


@lowers("aten.gelu.default")
def gelu(em, node, x, approximate="none"):
    if approximate != "none":
        raise Unsupported("gelu approximate=%s" % approximate)

    def body(bb, a):
        e = _erf(bb, bb.mul(a[0], bb.cf(0.7071067811865476)))
        return bb.mul(bb.mul(a[0], bb.cf(0.5)), bb.add(e, bb.cf(1.0)))
    return em.ewise(node.name, node.name, [em.get(x)], body)


@lowers("aten.gelu_backward.default")
def gelu_backward(em, node, g, x, approximate="none"):
    if approximate != "none":
        raise Unsupported("gelu approximate=%s" % approximate)

    def body(bb, a):
        xv = a[1]
        cdf = bb.mul(bb.cf(0.5), bb.add(bb.cf(1.0), _erf(bb, bb.mul(xv, bb.cf(0.7071067811865476)))))
        pdf = bb.mul(bb.cf(0.3989422804014327),
                     bb.un("math.exp", bb.mul(bb.mul(xv, xv), bb.cf(-0.5))))
        return bb.mul(a[0], bb.add(cdf, bb.mul(xv, pdf)))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


def _sigmoid(bb, x):
    return bb.div(bb.cf(1.0), bb.add(bb.cf(1.0), bb.un("math.exp", bb.un("arith.negf", x))))


@lowers("aten.silu.default")
def silu(em, node, x):
    return em.ewise(node.name, node.name, [em.get(x)],
                    lambda bb, a: bb.mul(a[0], _sigmoid(bb, a[0])))


@lowers("aten.silu_backward.default")
def silu_backward(em, node, g, x):
    """g * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    def body(bb, a):
        s = _sigmoid(bb, a[1])
        d = bb.add(bb.cf(1.0), bb.mul(a[1], bb.sub(bb.cf(1.0), s)))
        return bb.mul(a[0], bb.mul(s, d))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.abs.default")
def abs_(em, node, x):
    return em.ewise(node.name, node.name, [em.get(x)],
                    lambda bb, a: bb.un("math.absf", a[0]))


@lowers("aten.sgn.default", "aten.sign.default")
def sign(em, node, x):
    """-1, 0 or 1 (abs's backward multiplies by it)."""
    def body(bb, a):
        pos = bb.select(bb.cmpf("ogt", a[0], bb.cf(0.0)), bb.cf(1.0), bb.cf(0.0))
        return bb.select(bb.cmpf("olt", a[0], bb.cf(0.0)), bb.cf(-1.0), pos)
    return em.ewise(node.name, node.name, [em.get(x)], body)


def _relu6_of_x_plus_3(bb, x):
    return bb.bin("arith.minimumf",
                  bb.bin("arith.maximumf", bb.add(x, bb.cf(3.0)), bb.cf(0.0)), bb.cf(6.0))


@lowers("aten.hardsigmoid.default")
def hardsigmoid(em, node, x):
    """relu6(x + 3) / 6 (mobilenet_v3's squeeze-excitation)."""
    return em.ewise(node.name, node.name, [em.get(x)],
                    lambda bb, a: bb.div(_relu6_of_x_plus_3(bb, a[0]), bb.cf(6.0)))


@lowers("aten.hardsigmoid_backward.default")
def hardsigmoid_backward(em, node, g, x):
    """g / 6 where -3 < x < 3, else 0 (PyTorch's)."""
    def body(bb, a):
        inside = bb.andi(bb.cmpf("ogt", a[1], bb.cf(-3.0)), bb.cmpf("olt", a[1], bb.cf(3.0)))
        return bb.select(inside, bb.div(a[0], bb.cf(6.0)), bb.cf(0.0))
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.hardswish.default")
def hardswish(em, node, x):
    """x * relu6(x + 3) / 6 (mobilenet_v3)."""
    return em.ewise(node.name, node.name, [em.get(x)],
                    lambda bb, a: bb.div(bb.mul(a[0], _relu6_of_x_plus_3(bb, a[0])),
                                         bb.cf(6.0)))


@lowers("aten.hardswish_backward.default")
def hardswish_backward(em, node, g, x):
    """0 where x < -3, g (x / 3 + 1/2) where x <= 3, else g (PyTorch's)."""
    def body(bb, a):
        mid = bb.mul(a[0], bb.add(bb.div(a[1], bb.cf(3.0)), bb.cf(0.5)))
        hi = bb.select(bb.cmpf("ole", a[1], bb.cf(3.0)), mid, a[0])
        return bb.select(bb.cmpf("olt", a[1], bb.cf(-3.0)), bb.cf(0.0), hi)
    return em.ewise(node.name, node.name, [em.get(g), em.get(x)], body)


@lowers("aten.cos.default")
def cos(em, node, x):
    """Rotary position embeddings (cos and sin of the positions' angles)."""
    return em.ewise(node.name, node.name, [em.get(x)], lambda bb, a: bb.un("math.cos", a[0]))


@lowers("aten.sin.default")
def sin(em, node, x):
    return em.ewise(node.name, node.name, [em.get(x)], lambda bb, a: bb.un("math.sin", a[0]))
