# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""sum and mean over some or all dims."""

import math

from .registry import Unsupported, lowers


def reduced_dims(v, dim):
    """(reduced dims, kept dims, elements reduced per result) of a reduction
    of `v` over `dim` (an int, a list, or None or []: every dim)."""
    r = v.rank
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        red = list(range(r))
    else:
        red = sorted(set(d % r for d in (dim if isinstance(dim, (list, tuple)) else [dim])))
    keep = [d for d in range(r) if d not in red]
    return red, keep, math.prod(v.shape[d] for d in red)


def _sum(em, node, x, dim, keepdim, scale=None):
    """Sum over `dim` (None or []: all dims), each element times scale(n)
    for n summed elements; keepdim re-expands the result."""
    v = em.get(x)
    r = v.rank
    red, keep, n = reduced_dims(v, dim)
    c = scale(n) if scale else None

    def term(bb, a):
        return a[0] if c is None else bb.mul(a[0], bb.cf(c))
    out = em.sum_reduce(node.name, node.name + ("_r" if keepdim else ""), [v], keep, term)
    if keepdim:
        shape = [1 if d in red else v.shape[d] for d in range(r)]
        out = em.reshape(node.name + ".view", node.name, out, shape)
    return out


@lowers("aten.sum.dim_IntList")
def sum_dim(em, node, x, dim, keepdim=False, dtype=None):
    return _sum(em, node, x, dim, keepdim)


@lowers("aten.sum.default")
def sum_all(em, node, x, dtype=None):
    return _sum(em, node, x, None, False)


@lowers("aten.mean.dim")
def mean_dim(em, node, x, dim, keepdim=False, dtype=None):
    return _sum(em, node, x, dim, keepdim, scale=lambda n: 1.0 / n)


@lowers("aten.mean.default")
def mean_all(em, node, x, dtype=None):
    return _sum(em, node, x, None, False, scale=lambda n: 1.0 / n)


@lowers("aten.norm.ScalarOpt_dim")
def norm_dim(em, node, x, p, dim, keepdim=False):
    """The 2-norm over `dim` (F.normalize, swin_v2's cosine attention):
    sqrt(sum x^2)."""
    if p is not None and float(p) != 2.0:
        raise Unsupported("norm with p = %s" % p)
    v = em.get(x)
    r = v.rank
    red = sorted(set(d % r for d in (dim if isinstance(dim, (list, tuple)) else [dim])))
    keep = [d for d in range(r) if d not in red]
    sq = em.sum_reduce(node.name, node.name + "_sq", [v], keep,
                       lambda bb, a: bb.mul(a[0], a[0]))
    out = em.ewise(node.name + ".sqrt", node.name + ("_r" if keepdim else ""), [sq],
                   lambda bb, a: bb.un("math.sqrt", a[0]))
    if keepdim:
        shape = [1 if d in red else v.shape[d] for d in range(r)]
        out = em.reshape(node.name + ".view", node.name, out, shape)
    return out


@lowers("aten.all.dim")
def all_dim(em, node, x, dim, keepdim=False):
    """Whether every element along `dim` is true (i1): an `andi` reduction
    from true (the `_safe_softmax` decomposition's fully masked rows)."""
    v = em.get(x)
    if v.elt != "i1":
        raise Unsupported("all of %s values" % v.elt)
    r = v.rank
    red = [dim % r] if r else []
    keep = [d for d in range(r) if d not in red]
    z = em.f.filled(node.name + ("_r" if keepdim else ""), [v.shape[d] for d in keep],
                    node.name, 1, "i1")
    em._work(node.name, v.numel)
    out = em.f.generic(node.name + ("_r" if keepdim else ""), node.name, [v], [z],
                       em._reduce_maps([v], keep, None),
                       ["parallel" if d in keep else "reduction" for d in range(r)],
                       lambda b, a, o: b.andi(a[0], o[0]))
    if keepdim:
        shape = [1 if d in red else v.shape[d] for d in range(r)]
        out = em.reshape(node.name + ".view", node.name, out, shape)
    return out
