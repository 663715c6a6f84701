# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tensors made from a shape and a value: zeros, ones, full (and their
_like / new_ variants), fill, zero, and uninitialized tensors (empty,
new_empty: lazy, since what reads them usually takes only their shape:
stochastic depth's bernoulli_)."""

from ..graph import meta_shape
from ..values import LazyEmpty
from .registry import Unsupported, lowers


def _spec(node):
    ms = meta_shape(node)
    if ms is None:
        raise Unsupported("no shape for %s" % node.name)
    return ms


def _filled(em, node, value):
    shape, elt = _spec(node)
    if elt.startswith("f"):
        value = float(value)
    elif elt == "i1":
        value = int(bool(value))
    else:
        value = int(value)
    return em.f.filled(node.name, shape, node.name, value, elt)


@lowers("aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default",
        "aten.zero.default")
def zeros(em, node, *args, **kw):
    return _filled(em, node, 0)


@lowers("aten.ones.default", "aten.ones_like.default", "aten.new_ones.default")
def ones(em, node, *args, **kw):
    return _filled(em, node, 1)


@lowers("aten.full.default", "aten.new_full.default")
def full(em, node, a, b, *args, **kw):
    # full(size, value), new_full(self, size, value)
    return _filled(em, node, b if str(node.target) == "aten.full.default" else args[0])


@lowers("aten.scalar_tensor.default")
def scalar_tensor(em, node, value, **kw):
    return _filled(em, node, value)


@lowers("aten.full_like.default", "aten.fill.Scalar")
def full_like(em, node, x, value, *args, **kw):
    return _filled(em, node, value)


@lowers("aten.empty.memory_format", "aten.new_empty.default")
def empty(em, node, *args, **kw):
    """Lazy, like empty_like: a tensor.empty only if something reads its
    values."""
    return LazyEmpty(node.name, _spec(node))
