# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Slices, selections, splits and concatenation (tensor.extract_slice /
insert_slice), and the backward ops that scatter a slice's gradient into
zeros."""

from ..graph import meta_shape, tuple_shapes
from ..mlir import amap, identity_map
from .registry import Unsupported, lowers


@lowers("aten.slice.Tensor")
def slice_(em, node, x, dim=0, start=None, end=None, step=1):
    v = em.get(x)
    dim %= v.rank
    n = v.shape[dim]
    start = 0 if start is None else (start + n if start < 0 else min(start, n))
    end = n if end is None else (end + n if end < 0 else min(end, n))
    size = max(0, (end - start + step - 1) // step)
    if start == 0 and size == n and step == 1:
        return v
    offs = [0] * v.rank
    offs[dim] = start
    sizes = list(v.shape)
    sizes[dim] = size
    st = [1] * v.rank
    st[dim] = step
    return em.extract(node.name, node.name, v, offs, sizes, st)


@lowers("aten.select.int")
def select(em, node, x, dim, index):
    v = em.get(x)
    dim %= v.rank
    index %= v.shape[dim]
    offs = [0] * v.rank
    offs[dim] = index
    sizes = list(v.shape)
    sizes[dim] = 1
    shape = v.shape[:dim] + v.shape[dim + 1:]
    return em.extract(node.name, node.name, v, offs, sizes, [1] * v.rank, shape)


@lowers("aten.split.Tensor", "aten.unsafe_split.Tensor")
def split(em, node, x, size, dim=0):
    v = em.get(x)
    dim %= v.rank
    n = v.shape[dim]
    sizes = [min(size, n - s) for s in range(0, n, size)]
    return _split(em, node, v, sizes, dim)


@lowers("aten.split_with_sizes.default", "aten.unsafe_split_with_sizes.default")
def split_with_sizes(em, node, x, sizes, dim=0):
    v = em.get(x)
    return _split(em, node, v, sizes, dim % v.rank)


def _split(em, node, v, sizes, dim, drop=False):
    """One extract_slice per piece something reads (None for the others);
    `drop`: pieces of size 1 without the split dim (unbind)."""
    outs, off = [], 0
    used = tuple_shapes(node)
    for i, s in enumerate(sizes):
        if i in used:
            offs = [0] * v.rank
            offs[dim] = off
            sz = list(v.shape)
            sz[dim] = s
            shape = sz[:dim] + sz[dim + 1:] if drop else None
            outs.append(em.extract(node.name, "%s_%d" % (node.name, i), v, offs, sz,
                                   [1] * v.rank, shape))
        else:
            outs.append(None)
        off += s
    return tuple(outs)


@lowers("aten.cat.default")
def cat(em, node, xs, dim=0):
    vs = [em.get(x) for x in xs]
    vs = [v for v in vs if v.numel > 0]
    dim %= vs[0].rank
    shape = list(vs[0].shape)
    shape[dim] = sum(v.shape[dim] for v in vs)
    acc = em.f.empty(node.name, shape, node.name, vs[0].elt)
    off = 0
    for i, v in enumerate(vs):
        offs = [0] * v.rank
        offs[dim] = off
        last = i == len(vs) - 1
        acc = em.insert(node.name if last else "%s.%d" % (node.name, i),
                        node.name if last else "%s_p%d" % (node.name, i),
                        v, acc, offs, v.shape, [1] * v.rank)
        off += v.shape[dim]
    return acc


@lowers("aten.slice_backward.default")
def slice_backward(em, node, g, input_sizes, dim, start, end, step):
    gv = em.get(g)
    dim %= len(input_sizes)
    n = input_sizes[dim]
    start = start + n if start < 0 else min(start, n)
    z = em.f.filled(node.name, list(input_sizes), node.name)
    offs = [0] * gv.rank
    offs[dim] = start
    st = [1] * gv.rank
    st[dim] = step
    return em.insert(node.name, node.name, gv, z, offs, gv.shape, st)


@lowers("aten.select_backward.default")
def select_backward(em, node, g, input_sizes, dim, index):
    gv = em.get(g)
    r = len(input_sizes)
    dim %= r
    index %= input_sizes[dim]
    z = em.f.filled(node.name, list(input_sizes), node.name)
    offs = [0] * r
    offs[dim] = index
    sizes = list(input_sizes)
    sizes[dim] = 1
    return em.insert(node.name, node.name, gv, z, offs, sizes, [1] * r)


@lowers("aten.unbind.int")
def unbind(em, node, x, dim=0):
    v = em.get(x)
    dim %= v.rank
    return _split(em, node, v, [1] * v.shape[dim], dim, drop=True)


@lowers("aten.stack.default")
def stack(em, node, xs, dim=0):
    """Each tensor inserted as one index of the new dim (rank-extending
    insert_slice)."""
    vs = [em.get(x) for x in xs]
    shape = meta_shape(node)[0]
    r = len(shape)
    dim %= r
    acc = em.f.empty(node.name, shape, node.name, vs[0].elt)
    for i, v in enumerate(vs):
        offs = [0] * r
        offs[dim] = i
        sizes = list(shape)
        sizes[dim] = 1
        last = i == len(vs) - 1
        acc = em.insert(node.name if last else "%s.%d" % (node.name, i),
                        node.name if last else "%s_p%d" % (node.name, i),
                        v, acc, offs, sizes, [1] * r)
    return acc


@lowers("aten.roll.default")
def roll(em, node, x, shifts, dims=()):
    """out[.., i, ..] = x[.., (i - shift) mod n, ..]: a generic reading
    the input through a `mod` map (rolls without dims roll the flat
    tensor, not supported)."""
    v = em.get(x)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if not dims or len(dims) != len(shifts):
        raise Unsupported("roll without dims")
    r = v.rank
    res = ["d%d" % d for d in range(r)]
    for s, d in zip(shifts, dims):
        d %= r
        n = v.shape[d]
        s %= n
        if s:
            res[d] = "(d%d + %d) mod %d" % (d, n - s, n)
    if res == ["d%d" % d for d in range(r)]:
        return v
    e = em.f.empty(node.name, v.shape, node.name, v.elt)
    em._work(node.name, v.numel)
    return em.f.generic(node.name, node.name, [v], [e], [amap(r, res), identity_map(r)],
                        ["parallel"] * r, lambda bb, a, o: [a[0]])


def _contiguous(size, stride):
    """Whether `stride` is the row-major layout of `size` (unit dims may
    have any stride)."""
    expect = 1
    for n, s in reversed(list(zip(size, stride))):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def _flat(em, loc, v):
    return em.reshape(loc, loc + "_flat", v, [v.numel]) if v.rank != 1 else v


@lowers("aten.as_strided.default")
def as_strided(em, node, x, size, stride, offset=0):
    """A view of x's storage, taken to be x in row-major order (what
    functionalization leaves: views of a fresh tensor): out[i..] =
    flat(x)[offset + sum(i_k stride_k)], a slice and reshape when the
    strides are row-major, else a generic reading flat(x) by that map."""
    v = em.get(x)
    size, stride = list(size), list(stride)
    offset = offset or 0
    n = 1
    for s in size:
        n *= s
    if n and offset + sum((a - 1) * b for a, b in zip(size, stride)) >= v.numel:
        raise Unsupported("as_strided beyond its input")
    if _contiguous(size, stride):
        if offset == 0 and n == v.numel:
            return em.reshape(node.name, node.name, v, size)
        flat = _flat(em, node.name + ".flat", v)
        piece = em.extract(node.name + ".slice", node.name + "_s", flat, [offset], [n], [1])
        return em.reshape(node.name, node.name, piece, size)
    flat = _flat(em, node.name + ".flat", v)
    r = len(size)
    expr = " + ".join(["%d" % offset] + ["d%d * %d" % (i, s) for i, s in enumerate(stride)])
    e = em.f.empty(node.name, size, node.name, v.elt)
    em._work(node.name, n)
    return em.f.generic(node.name, node.name, [flat], [e], [amap(r, [expr]), identity_map(r)],
                        ["parallel"] * r, lambda bb, a, o: [a[0]])


@lowers("aten.as_strided_scatter.default")
def as_strided_scatter(em, node, base, src, size, stride, offset=0):
    """base with as_strided(base, size, stride, offset) replaced by src:
    an insert_slice into the flat base (row-major strides only)."""
    bv, sv = em.get(base), em.get(src)
    size, stride = list(size), list(stride)
    offset = offset or 0
    if not _contiguous(size, stride):
        raise Unsupported("as_strided_scatter with non-row-major strides")
    n = sv.numel
    if offset + n > bv.numel:
        raise Unsupported("as_strided_scatter beyond its base")
    if offset == 0 and n == bv.numel:
        return em.reshape(node.name, node.name, sv, bv.shape)
    flat = _flat(em, node.name + ".flat", bv)
    sflat = _flat(em, node.name + ".srcflat", sv)
    out = em.insert(node.name + ".insert", node.name + "_i", sflat, flat, [offset], [n], [1])
    return em.reshape(node.name, node.name, out, bv.shape)
