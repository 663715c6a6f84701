# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Token embeddings (a gather of weight rows by integer ids), bags of them
(EmbeddingBag's sums and means) and the integer ops that make ids: dtype
conversion (_to_copy) and remainder."""

from ..graph import meta_shape
from ..mlir import amap, identity_map
from .registry import Unsupported, lowers

INT = ("i32", "i64")


@lowers("aten.embedding.default")
def embedding(em, node, weight, ids, padding_idx=-1, scale_grad_by_freq=False,
              sparse=False):
    """out[..., j] = weight[ids[...], j]: the row is read with tensor.extract
    inside the generic (ids are in range: PyTorch checks them)."""
    w, i = em.get(weight), em.get(ids)
    if w.rank != 2 or i.elt not in INT or w.elt != "f32":
        raise Unsupported("embedding of a %s weight by %s ids" % (w.elt, i.elt))
    shape = meta_shape(node)[0]
    r = len(shape)
    e = em.f.empty(node.name, shape, node.name)
    em._work(node.name, i.numel * w.shape[1])

    def body(b, a, o):
        row = b.emit("arith.index_cast %s : %s to index" % (a[0], i.elt))
        col = b.index(r - 1)
        return [b.emit("tensor.extract %s[%s, %s] : %s" % (w.ssa, row, col, w.ty))]
    return em.f.generic(node.name, node.name, [i], [e],
                        [amap(r, ["d%d" % d for d in range(r - 1)]), identity_map(r)],
                        ["parallel"] * r, body)


@lowers("aten.embedding_dense_backward.default")
def embedding_backward(em, node, grad, ids, num_weights, padding_idx=-1,
                       scale_grad_by_freq=False):
    """dW[v, j] = sum over positions p with ids[p] == v of grad[p, j] (but
    none for padding_idx): a reduction over every position for each row,
    O(V * positions * d), fine for the vocabularies of the tests."""
    if scale_grad_by_freq:
        raise Unsupported("embedding backward scaled by frequency")
    g, i = em.get(grad), em.get(ids)
    if i.elt not in INT:
        raise Unsupported("embedding backward by %s ids" % i.elt)
    shape = meta_shape(node)[0]              # [V, d]
    pos = i.rank                             # position dims p0..p{k-1}
    n = 2 + pos                              # (v, j, p...)
    z = em.f.filled(node.name, shape, node.name, 0.0)
    ps = ["d%d" % (2 + k) for k in range(pos)]
    em._work(node.name, shape[0] * g.numel)

    def body(b, a, o):
        v = b.emit("arith.index_cast %s : index to %s" % (b.index(0), i.elt))
        hit = b.cmpi("eq", a[1], v, i.elt)
        if padding_idx is not None and padding_idx >= 0:
            keep = b.cmpi("ne", v, b.ci(padding_idx, i.elt), i.elt)
            hit = b.andi(hit, keep)
        return [b.select(hit, b.add(o[0], a[0]), o[0])]
    return em.f.generic(node.name, node.name, [g, i], [z],
                        [amap(n, ps + ["d1"]), amap(n, ps), amap(n, ["d0", "d1"])],
                        ["parallel", "parallel"] + ["reduction"] * pos, body)


@lowers("aten._to_copy.default")
def to_copy(em, node, x, dtype=None, layout=None, device=None, pin_memory=None,
            non_blocking=False, memory_format=None):
    """A dtype conversion (float <-> integer, by truncation toward zero as
    PyTorch's .long() does); the same dtype is a copy."""
    v = em.get(x)
    shape, elt = meta_shape(node)
    if elt == v.elt:
        return em.ewise(node.name, node.name, [v], lambda b, a: a[0], out_shape=shape,
                        elt=elt)
    if v.elt == "f32" and elt in INT:
        op = "arith.fptosi %%s : f32 to %s" % elt
    elif v.elt in INT and elt == "f32":
        op = "arith.sitofp %%s : %s to f32" % v.elt
    elif v.elt in INT and elt in INT:
        op = ("arith.extsi %%s : %s to %s" if v.elt == "i32" else
              "arith.trunci %%s : %s to %s") % (v.elt, elt)
    else:
        raise Unsupported("_to_copy from %s to %s" % (v.elt, elt))
    return em.ewise(node.name, node.name, [v], lambda b, a: b.emit(op % a[0]),
                    out_shape=shape, elt=elt)


@lowers("aten.remainder.Scalar")
def remainder(em, node, x, divisor):
    """x mod divisor with the divisor's sign (Python's %), on integers."""
    v = em.get(x)
    shape, elt = meta_shape(node)
    if v.elt not in INT or elt != v.elt or not isinstance(divisor, int) or divisor == 0:
        raise Unsupported("remainder of %s by %r" % (v.elt, divisor))

    def body(b, a):
        d = b.ci(divisor, elt)
        r = b.bin("arith.remsi", a[0], d, elt)
        # remsi takes the dividend's sign: move a nonzero r of the other sign.
        zero = b.ci(0, elt)
        wrong = b.bin("arith.xori", b.cmpi("slt", r, zero, elt),
                      b.cmpi("slt", d, zero, elt), "i1")
        fix = b.andi(wrong, b.cmpi("ne", r, zero, elt))
        return b.select(fix, b.bin("arith.addi", r, d, elt), r, elt)
    return em.ewise(node.name, node.name, [v], body, out_shape=shape, elt=elt)


def _count_generic(em, loc, base, ins, shape, maps, hit, init):
    """An i64 tensor of `shape` counting, from `init`, the reduction
    positions where hit(b, args) (an i1) holds."""
    z = em.f.filled(base, shape, loc, init, "i64")

    def body(b, a, o):
        return [b.select(hit(b, a), b.bin("arith.addi", o[0], b.ci(1, "i64"), "i64"), o[0],
                         "i64")]
    return em.f.generic(base, loc, ins, [z], maps, ["parallel", "reduction"], body)


def _bag_term(b, row, size, mean):
    """A row's term of its bag: itself (sum), or over the bag's size (mean)."""
    if not mean:
        return row
    one = b.ci(1, "i64")
    n = b.emit("arith.sitofp %s : i64 to f32" % b.bin("arith.maxsi", size, one, "i64"))
    return b.div(row, n)


@lowers("aten._embedding_bag.default")
def embedding_bag(em, node, weight, ids, offsets, scale_grad_by_freq=False, mode=0,
                  sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=-1):
    """Bags of rows (sum or mean) -> (out, offset2bag, bag_size, max_indices).
    offset2bag[p] = #{offsets <= p} - 1 and bag_size[b] = #{p in bag b} are
    counts (O(positions * bags)); out[b, j] sums weight[ids[p], j] over the
    positions of bag b (over its size for mean; an empty bag is 0)."""
    if mode not in (0, 1):
        raise Unsupported("embedding_bag mode max")
    if per_sample_weights is not None or (padding_idx is not None and padding_idx >= 0):
        raise Unsupported("embedding_bag with per_sample_weights or padding_idx")
    w, i, off = em.get(weight), em.get(ids), em.get(offsets)
    if w.rank != 2 or i.rank != 1 or i.elt not in INT or off.elt not in INT or w.elt != "f32":
        raise Unsupported("embedding_bag of a %s weight by %s ids" % (w.elt, i.elt))
    loc, n, nb, d = node.name, i.shape[0], int(node.meta["val"][0].shape[0]), w.shape[1]
    o2b = _count_generic(
        em, loc, loc + "_o2b", [off], [n], [amap(2, ["d1"]), amap(2, ["d0"])],
        lambda b, a: b.cmpi("sle", a[0], b.cast_index(b.index(0), off.elt), off.elt), -1)
    size = _count_generic(
        em, loc, loc + "_size", [o2b], [nb], [amap(2, ["d1"]), amap(2, ["d0"])],
        lambda b, a: b.cmpi("eq", a[0], b.cast_index(b.index(0), "i64"), "i64"), 0)
    z = em.f.filled(loc, [nb, d], loc)
    em._work(loc, 2 * n * (off.shape[0] + nb) + nb * n * d)

    def body(b, a, o):
        hit = b.cmpi("eq", a[0], b.cast_index(b.index(0), "i64"), "i64")
        row = b.emit("arith.index_cast %s : %s to index" % (a[1], i.elt))
        val = b.emit("tensor.extract %s[%s, %s] : %s" % (w.ssa, row, b.index(1), w.ty))
        return [b.select(hit, b.add(o[0], _bag_term(b, val, a[2], mode == 1)), o[0])]
    out = em.f.generic(loc, loc, [o2b, i, size], [z],
                       [amap(3, ["d2"]), amap(3, ["d2"]), amap(3, ["d0"]),
                        amap(3, ["d0", "d1"])],
                       ["parallel", "parallel", "reduction"], body)
    # Only max mode's backward reads max_indices.
    return (out, o2b, size, em.f.filled(loc + "_max", [nb], loc, 0, "i64"))


@lowers("aten._embedding_bag_backward.default")
def embedding_bag_backward(em, node, grad, ids, offsets, offset2bag, bag_size, max_indices,
                           num_weights, scale_grad_by_freq, mode, *rest):
    """dW[v, j] = sum over positions p with ids[p] == v of grad[bag, j]
    (over the bag's size for mean), bag = offset2bag[p]: as embedding's
    backward, grad read at the position's bag with tensor.extract."""
    if mode not in (0, 1):
        raise Unsupported("embedding_bag backward mode max")
    if scale_grad_by_freq:
        raise Unsupported("embedding_bag backward scaled by frequency")
    g, i, o2b, size = em.get(grad), em.get(ids), em.get(offset2bag), em.get(bag_size)
    shape = meta_shape(node)[0]              # [V, d]
    z = em.f.filled(node.name, shape, node.name, 0.0)
    em._work(node.name, shape[0] * i.numel * shape[1])

    def body(b, a, o):
        v = b.cast_index(b.index(0), i.elt)
        bag = b.emit("arith.index_cast %s : i64 to index" % a[1])
        row = b.emit("tensor.extract %s[%s, %s] : %s" % (g.ssa, bag, b.index(1), g.ty))
        n = b.emit("tensor.extract %s[%s] : %s" % (size.ssa, bag, size.ty))
        return [b.select(b.cmpi("eq", a[0], v, i.elt),
                         b.add(o[0], _bag_term(b, row, n, mode == 1)), o[0])]
    return em.f.generic(node.name, node.name, [i, o2b], [z],
                        [amap(3, ["d2"]), amap(3, ["d2"]), amap(3, ["d0", "d1"])],
                        ["parallel", "parallel", "reduction"], body)
