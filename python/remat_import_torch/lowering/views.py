# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reshapes (tensor.collapse_shape / expand_shape), lazy permutations and
broadcasts."""

from ..graph import meta_shape
from ..values import Perm
from .registry import lowers


def _view(em, node, x, shape):
    return em.reshape(node.name, node.name, em.get(x), list(shape))


@lowers("aten.view.default", "aten.reshape.default", "aten._unsafe_view.default")
def view(em, node, x, shape):
    return _view(em, node, x, shape)


@lowers("aten._reshape_alias.default")
def reshape_alias(em, node, x, shape, stride):
    return _view(em, node, x, shape)


@lowers("aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default")
def squeeze(em, node, x, dim=None):
    # The traced result shape says which unit dims went (all of them
    # without `dim`).
    return _view(em, node, x, meta_shape(node)[0])


@lowers("aten.unsqueeze.default")
def unsqueeze(em, node, x, dim):
    return _view(em, node, x, meta_shape(node)[0])


def _perm(em, node, x, perm):
    """A Perm of x; a permutation of a pending Perm composes with it."""
    src = em.vals[x] if hasattr(x, "op") else None
    if isinstance(src, Perm) and src.done is None:
        return Perm(src.src, [src.perm[p] for p in perm])
    return Perm(x, perm)


@lowers("aten.t.default")
def t(em, node, x):
    r = len(meta_shape(node)[0])
    return _perm(em, node, x, [1, 0] if r == 2 else list(range(r)))


@lowers("aten.transpose.int")
def transpose(em, node, x, d0, d1):
    r = len(meta_shape(node)[0])
    p = list(range(r))
    d0, d1 = d0 % r, d1 % r
    p[d0], p[d1] = p[d1], p[d0]
    return _perm(em, node, x, p)


@lowers("aten.permute.default")
def permute(em, node, x, perm):
    r = len(perm)
    return _perm(em, node, x, [p % r for p in perm])


@lowers("aten.expand.default")
def expand(em, node, x, sizes, implicit=False):
    v = em.get(x)
    out = meta_shape(node)[0]
    if out == v.shape:
        return v
    return em.ewise(node.name, node.name, [v], lambda bb, a: a[0], out_shape=out,
                    elt=v.elt)
