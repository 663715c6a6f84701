# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Token embeddings (a gather of weight rows by integer ids) and the
integer ops that make ids: dtype conversion (_to_copy) and remainder."""

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
