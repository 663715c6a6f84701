# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""linalg building blocks on one mlir.Func, shared by every op family:
broadcasting elementwise ops, reductions, reshapes, transposes, padding
and slices.  Each records its analytic work per location, by which
--profile splits a node's measured time over the ops it became."""

import math

import torch

from ..mlir import (Func, V, amap, collapse_op, expand_op, extract_slice_op,
                    identity_map, insert_slice_op, transpose_op)
from .registry import Unsupported

NEG_INF = float("-inf")     # where max-reductions start; what max pooling pads with
# Sums over at least this many terms accumulate in float64 (--f64-sums-from).
# A sum lowers to one sequential loop: in float32 its rounding error grows
# with the number of terms, where PyTorch's CPU kernels sum in blocks
# (batch-norm statistics and weight gradients over N x H x W of activations
# with a large mean: test/Importer/long-sums.test).  An f64 accumulator
# costs one f64 tensor of the (small) result and a rounding generic, both
# ops the planner sees.
F64_SUMS_FROM = 256
# Convolutions and matrix products whose reduction sums at least this many
# products per result accumulate in float64 too (--f64-products-from).  Their
# terms are centred (weights are), so float32's error grows like the square
# root of the length rather than the length, and their results are
# activations: large tensors, for which an f64 copy is costly.  Only the long
# reductions of wide layers reach it (1x1 convolutions over thousands of
# channels, wide classifier heads), whose outputs are spatially small.
F64_PRODUCTS_FROM = 2048


class Builder:
    """Builds the func.func `name` (self.f) out of linalg/tensor ops."""

    def __init__(self, name, f64_sums_from=None, f64_products_from=None):
        self.f = Func(name)
        self.loc_work = {}          # loc -> analytic work (profile splits time by it)
        # 0: every sum (product) accumulates in f32
        self.f64_sums_from = F64_SUMS_FROM if f64_sums_from is None else f64_sums_from
        self.f64_products_from = F64_PRODUCTS_FROM if f64_products_from is None \
            else f64_products_from

    def _work(self, loc, w):
        self.loc_work[loc] = self.loc_work.get(loc, 0.0) + float(w)

    def bcast_map(self, v, out_shape):
        """Indexing map reading v broadcast (numpy rules) to out_shape."""
        r = len(out_shape)
        k = r - v.rank
        res = []
        for i, d in enumerate(v.shape):
            od = out_shape[k + i]
            res.append("0" if (d == 1 and od != 1) else "d%d" % (k + i))
        return amap(r, res)

    def ewise(self, loc, base, ins, body, out_shape=None, elt="f32", attrs=None):
        """Elementwise generic over out_shape; `ins` are V (broadcast) or
        Python scalars (constants in the body); body(b, args) -> value."""
        tins = [x for x in ins if isinstance(x, V)]
        if out_shape is None:
            out_shape = list(torch.broadcast_shapes(*[tuple(x.shape) for x in tins]))
        out_shape = [int(d) for d in out_shape]
        r = len(out_shape)
        e = self.f.empty(base, out_shape, loc, elt)
        maps = [self.bcast_map(x, out_shape) for x in tins] + [identity_map(r)]

        def fn(b, a, o):
            it = iter(a)
            args = []
            for x in ins:
                if isinstance(x, V):
                    args.append(next(it))
                else:
                    args.append(b.cf(float(x)))
            return body(b, args)
        self._work(loc, math.prod(out_shape) * max(1, len(tins)))
        return self.f.generic(base, loc, tins, [e], maps, ["parallel"] * r, fn, attrs=attrs)

    def reduce(self, loc, base, ins, out_dims, body, init=0.0, extra_maps=None):
        """Reduction generic over the domain of ins[0]: keeps `out_dims` (a
        sorted list of dims of ins[0]); other ins are broadcast-read with
        maps given in extra_maps (or their own broadcasting against ins[0]).
        body(b, args, acc) -> new acc."""
        x = ins[0]
        r = x.rank
        out_shape = [x.shape[d] for d in out_dims]
        z = self.f.filled(base, out_shape, loc, init)
        maps = self._reduce_maps(ins, out_dims, extra_maps)
        iters = ["parallel" if d in out_dims else "reduction" for d in range(r)]
        self._work(loc, x.numel * len(ins))
        return self.f.generic(base, loc, ins, [z], maps, iters,
                              lambda b, a, o: body(b, a, o[0]))

    def _reduce_maps(self, ins, out_dims, extra_maps):
        x = ins[0]
        maps = [identity_map(x.rank)]
        for i, v in enumerate(ins[1:]):
            if extra_maps and extra_maps[i] is not None:
                maps.append(extra_maps[i])
            else:
                maps.append(self.bcast_map(v, x.shape))
        maps.append(amap(x.rank, ["d%d" % d for d in out_dims]))
        return maps

    def sum_reduce(self, loc, base, ins, out_dims, term, extra_maps=None):
        """reduce() of acc + term(b, args): the sum over the dims of ins[0]
        not in out_dims (float64 accumulation when long: sum_generic)."""
        x = ins[0]
        out_shape = [x.shape[d] for d in out_dims]
        iters = ["parallel" if d in out_dims else "reduction" for d in range(x.rank)]
        self._work(loc, x.numel * len(ins))
        return self.sum_generic(loc, base, ins, out_shape,
                                self._reduce_maps(ins, out_dims, extra_maps), iters,
                                term, x.numel // max(1, math.prod(out_shape)))

    def sum_generic(self, loc, base, ins, out_shape, maps, iters, term, length):
        """A generic that sums term(b, args) (f32) over its reduction dims,
        `length` terms per result.  Sums of at least f64_sums_from terms
        accumulate in an f64 result that one more generic (`loc`.round)
        rounds to f32 (see F64_SUMS_FROM)."""
        if not self.f64_sums_from or length < self.f64_sums_from:
            z = self.f.filled(base, out_shape, loc)
            return self.f.generic(base, loc, ins, [z], maps, iters,
                                  lambda b, a, o: [b.add(o[0], term(b, a))])
        acc = self.f.filled(base + "_64", out_shape, loc, 0.0, "f64")

        def body(b, a, o):
            t = b.emit("arith.extf %s : f32 to f64" % term(b, a))
            return [b.bin("arith.addf", o[0], t, "f64")]
        return self.rounded(loc, base, self.f.generic(base + "_64", loc, ins, [acc], maps,
                                                      iters, body))

    def rounded(self, loc, base, v64):
        """An f64 accumulator rounded to f32 once, by a generic at `loc`.round."""
        return self.ewise(loc + ".round", base, [v64],
                          lambda b, a: b.emit("arith.truncf %s : f64 to f32" % a[0]))

    def product(self, loc, base, shape, length, build, init=None):
        """A convolution or matrix product summing `length` products per
        result: build(acc, base, elt) emits it into the initial value acc
        (element type elt) and returns its result.  init(elt) makes that
        initial value (default zeros).  Products of at least
        f64_products_from terms accumulate in f64 and are rounded to f32 once
        by one more generic (`loc`.round), as sum_generic does for sums."""
        if init is None:
            def init(elt):
                return self.f.filled(base + ("_64" if elt == "f64" else ""), shape, loc,
                                     0.0, elt)
        if not self.f64_products_from or length < self.f64_products_from:
            return build(init("f32"), base, "f32")
        return self.rounded(loc, base, build(init("f64"), base + "_64", "f64"))

    @staticmethod
    def mac(b, acc, x, y, elt):
        """acc + x * y in a generic's body; x, y are f32, acc is `elt` (f64:
        the product is formed exactly in f64)."""
        if elt == "f32":
            return b.add(acc, b.mul(x, y))
        x, y = (b.emit("arith.extf %s : f32 to f64" % v) for v in (x, y))
        return b.bin("arith.addf", acc, b.bin("arith.mulf", x, y, elt), elt)

    def channel_map(self, rank, ch=1):
        """Reads a [C] tensor along dim ch of a rank-`rank` domain."""
        return amap(rank, ["d%d" % ch])

    def reshape(self, loc, base, v, shape):
        shape = [int(s) for s in shape]
        if -1 in shape:
            known = math.prod([s for s in shape if s != -1])
            shape[shape.index(-1)] = v.numel // max(known, 1)
        if shape == v.shape:
            return v
        if math.prod(shape) != v.numel:
            raise Unsupported("reshape %s to %s" % (v.shape, shape))
        if v.rank > 0 and len(shape) < v.rank:
            re = self._reassoc(v.shape, shape)
            if re is not None:
                return self._collapse(loc, base, v, shape, re)
        if len(shape) > v.rank:
            re = self._reassoc(shape, v.shape)
            if re is not None:
                return self._expand(loc, base, v, shape, re)
        # General: collapse to 1-D, then expand.
        flat = self._collapse(loc, base + "_flat", v, [v.numel], [list(range(v.rank))]) \
            if v.rank != 1 else v
        if len(shape) == 1:
            return flat
        return self._expand(loc, base, flat, shape, [list(range(len(shape)))])

    @staticmethod
    def _reassoc(big, small):
        """Groups of consecutive dims of `big` whose products give `small`."""
        if not small:
            return [] if math.prod(big) == 1 else None
        groups, i = [], 0
        for s in small:
            g, p = [], 1
            while i < len(big) and (not g or p < s):
                p *= big[i]
                g.append(i)
                i += 1
            if p != s:
                return None
            groups.append(g)
        while i < len(big) and big[i] == 1:
            groups[-1].append(i)
            i += 1
        return groups if i == len(big) else None

    def _collapse(self, loc, base, v, shape, re):
        r = self.f.value(base, shape, v.elt)
        return self.f.op([r], collapse_op(v, re, r), loc)

    def _expand(self, loc, base, v, shape, re):
        r = self.f.value(base, shape, v.elt)
        return self.f.op([r], expand_op(v, re, r), loc)

    def transpose(self, loc, v, perm):
        shape = [v.shape[p] for p in perm]
        e = self.f.empty(loc, shape, loc, v.elt)
        r = self.f.value(loc, shape, v.elt)
        self._work(loc, v.numel)
        return self.f.op([r], transpose_op(v, e, perm), loc)

    def pad(self, loc, base, v, lows, highs, value=0.0, strides=None):
        """v placed into a `value`-filled tensor: low/high padding of the
        trailing len(lows) dims, optional interior strides (dilation)."""
        k = len(lows)
        lead = v.rank - k
        strides = strides or [1] * k
        inner = [(v.shape[lead + i] - 1) * strides[i] + 1 for i in range(k)]
        shape = v.shape[:lead] + [lows[i] + inner[i] + highs[i] for i in range(k)]
        if shape == v.shape:
            return v
        z = self.f.filled(base, shape, loc, value, v.elt)
        r = self.f.value(base, shape, v.elt)
        offs = [0] * lead + list(lows)
        st = [1] * lead + list(strides)
        self._work(loc, v.numel)
        return self.f.op([r], insert_slice_op(v, z, offs, v.shape, st), loc)

    def extract(self, loc, base, v, offs, sizes, strides, shape=None):
        shape = shape if shape is not None else sizes
        r = self.f.value(base, shape, v.elt)
        return self.f.op([r], extract_slice_op(v, offs, sizes, strides, r), loc)

    def insert(self, loc, base, src, dst, offs, sizes, strides):
        r = self.f.value(base, dst.shape, dst.elt)
        self._work(loc, src.numel)
        return self.f.op([r], insert_slice_op(src, dst, offs, sizes, strides), loc)
