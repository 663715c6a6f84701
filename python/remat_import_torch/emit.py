"""ATen joint graph -> one func.func on tensors (linalg/tensor/arith/math).

Each FX node of the joint graph becomes the ops that compute it, named
after the node (loc("convolution_3"); helper ops of the same node get a
suffix: loc("convolution_3.pad")).  Aliases (detach, clone, getitem) bind
to the value they alias; transposes are materialized lazily (a transpose of
a transpose is the original; a matrix product reads a transposed operand
through its indexing map); reshapes are tensor views.

Supported ops are executable (see SUPPORTED, docs/importer.md); every other
op becomes `remat.op "aten.xxx"` with its shapes and an estimated cost, so the
function still plans but cannot be lowered.  In planning-only mode every
op is a remat.op (one planner node per ATen op, views aliasing their input).
"""

import math
from collections import Counter

from .graph import ALIASES, elt_of, live_nodes, meta_shape, pair, tuple_shapes
from .lowering import HANDLERS
from .lowering.builder import NEG_INF, Builder
from .lowering.registry import Unsupported
from .mlir import V, amap, identity_map
from .opaque import opaque, opaque_node, planning_value
from .values import LazyEmpty, Perm


class Emitter(Builder):
    def __init__(self, joint, name="step", planning_only=False, strict=False, probes=()):
        super().__init__(name)
        self.j = joint
        self.planning_only = planning_only
        self.strict = strict
        self.vals = {}
        self.unsupported = Counter()
        self.planner_nodes = []     # fx node names of planner nodes, in order (planning-only)
        self.seed = 0
        self.probes = list(probes)  # fx node names returned as extra results (debugging)
        self.arg_primals = []       # Primal of every argument, in order
        self.result_primals = []    # Primal of every gradient result, in order

    # ------------------------------------------------------------------
    # Driver
    # ------------------------------------------------------------------
    def run(self):
        j = self.j
        # Arguments: inputs first, then parameters (corpus convention);
        # buffers only when an emitted op reads them (lazily).
        self.primal_of = {p.node: p for p in j.primals}
        for p in [p for p in j.primals if p.kind == "input"] + \
                 [p for p in j.primals if p.kind == "param"]:
            self._make_arg(p)
        tshape, telt = meta_shape(j.tangent) or ([], "f32")
        t = self.f.value("tangent", tshape, telt)
        self.f.const_lines.append(
            "  %s = arith.constant dense<1.0> : %s loc(\"tangent\")" % (t.ssa, t.ty))
        self.vals[j.tangent] = t

        for node in j.graph_module.graph.nodes:
            if node.op != "call_function":
                continue
            if not self._needed(node):
                continue
            self._emit(node)

        loss = self.get(j.loss)
        if loss.shape != []:
            raise Unsupported("the loss is not a scalar: %s" % loss.ty)
        self.f.results.append((loss, "remat.loss"))
        for p, g in zip(j.primals, j.grads):
            if p.kind != "param" or g is None:
                continue
            gv = self.get(g)
            if gv.shape != p.shape:
                gv = self._fix_result(g, gv, p.shape)
            self.f.results.append((gv, None))
            self.result_primals.append(p)
        nodes = {n.name: n for n in j.graph_module.graph.nodes}
        for name in self.probes:
            if name not in nodes or nodes[name] not in self.vals:
                raise Unsupported("no value for probe %s" % name)
            self.f.results.append((self.get(nodes[name]), None))
        return self

    def _needed(self, node):
        """Whether a node contributes to the loss or a parameter gradient."""
        if not hasattr(self, "_live"):
            self._live = live_nodes(self.j, self.probes)
        return node in self._live

    def _make_arg(self, p):
        base = p.name.replace(".", "_") if p.kind != "input" else p.name
        v = self.f.arg(base, p.shape, elt_of(p.dtype))
        self.vals[p.node] = v
        self.arg_primals.append(p)
        return v

    def _fix_result(self, g, gv, shape):
        # Only planning-only mode aliases views; give the result its real type.
        if self.planning_only:
            return opaque(self, g.name + ".result", "aten.view", [gv], [(shape, gv.elt)])[0]
        raise Unsupported("gradient %s has shape %s, expected %s" % (g.name, gv.shape, shape))

    # ------------------------------------------------------------------
    # Values
    # ------------------------------------------------------------------
    def get(self, n):
        if isinstance(n, (list, tuple)):
            return [self.get(x) for x in n]
        if not hasattr(n, "op"):
            return n
        if n not in self.vals:
            if n.op == "placeholder" and n in self.primal_of:
                return self._make_arg(self.primal_of[n])
            raise Unsupported("value %s used before definition" % n.name)
        v = self.vals[n]
        if isinstance(v, Perm):
            return self._materialize(n, v)
        if isinstance(v, LazyEmpty):
            if v.done is None:
                v.done = self.f.empty(v.name, v.shape, v.name, v.elt)
            return v.done
        return v

    def _shape_of(self, n):
        """(shape, elt) of a node's value without materializing it."""
        v = self.vals.get(n)
        if isinstance(v, (V, LazyEmpty)):
            return v.shape, v.elt
        ms = meta_shape(n)
        if ms:
            return ms
        g = self.get(n)
        return g.shape, g.elt

    def _materialize(self, n, p):
        if p.done is None:
            src = self.get(p.src)
            if p.perm == list(range(len(p.perm))):
                p.done = src
            else:
                p.done = self.transpose(n.name, src, p.perm)
        return p.done

    def operand_perm(self, n):
        """(V, perm or None): a permuted value without materializing it."""
        v = self.vals.get(n) if hasattr(n, "op") else None
        if isinstance(v, Perm) and v.done is None:
            return self.get(v.src), v.perm
        return self.get(n), None

    # ------------------------------------------------------------------
    # Dispatch
    # ------------------------------------------------------------------
    def _emit(self, node):
        target = node.target
        name = str(target)
        if getattr(target, "__name__", "") == "getitem":
            src = self.vals[node.args[0]]
            self.vals[node] = src[node.args[1]]
            return
        if name in ALIASES:
            a = node.args[0]
            self.vals[node] = self.vals[a] if a in self.vals else self.get(a)
            return
        if self.planning_only:
            self.vals[node] = planning_value(self, node, name)
            return
        key = name.replace("aten.", "").replace(".", "__")
        fn = getattr(self, "op_" + key, None)
        if name in HANDLERS:  # moved to lowering/ (the methods follow)
            handler = HANDLERS[name]

            def fn(*args, **kwargs):
                return handler(self, *args, **kwargs)
        if fn is not None:
            try:
                self.vals[node] = fn(node, *node.args, **node.kwargs)
                return
            except Unsupported as e:
                if self.strict:
                    raise
                self._note_unsupported(name, str(e))
        else:
            if self.strict:
                raise Unsupported("unsupported ATen op %s (node %s)" % (name, node.name))
            self._note_unsupported(name, None)
        self.vals[node] = opaque_node(self, node, name)

    def _note_unsupported(self, name, why):
        self.unsupported[name + ((" (" + why + ")") if why else "")] += 1

    # ------------------------------------------------------------------
    # Convolution
    # ------------------------------------------------------------------
    def _conv_params(self, x, w, stride, padding, dilation, transposed, groups):
        if transposed:
            raise Unsupported("transposed convolution")
        if x.rank != 4:
            raise Unsupported("%d-D convolution" % (x.rank - 2))
        if any(d != 1 for d in pair(dilation, [1, 1])):
            raise Unsupported("dilated convolution")
        depthwise = False
        if groups != 1:
            if groups == x.shape[1] and w.shape[0] == groups and w.shape[1] == 1:
                depthwise = True
            else:
                raise Unsupported("grouped convolution (groups=%d)" % groups)
        return pair(stride, [1, 1]), pair(padding, [0, 0]), depthwise

    def _conv_op(self, loc, base, xp, w, init, stride, depthwise):
        r = self.f.value(base, init.shape)
        n, f, ho, wo = init.shape
        kh, kw = w.shape[-2:]
        cin = 1 if depthwise else xp.shape[1]
        self._work(loc, 2.0 * n * f * ho * wo * cin * kh * kw)
        opn = "linalg.depthwise_conv_2d_nchw_chw" if depthwise else "linalg.conv_2d_nchw_fchw"
        return self.f.op([r], "%s {dilations = dense<1> : tensor<2xi64>, strides = dense<[%d, %d]> : tensor<2xi64>}\n"
                         "      ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                             opn, stride[0], stride[1], xp.ssa, w.ssa, xp.ty, w.ty,
                             init.ssa, init.ty, r.ty), loc)

    def _dw_weight(self, loc, w):
        """[C, 1, KH, KW] -> [C, KH, KW] (a view)."""
        return self.reshape(loc + ".view", w.ssa[1:] + "_dw", w, [w.shape[0]] + w.shape[2:])

    def op_convolution__default(self, node, x, w, b, stride, padding, dilation,
                                transposed, output_padding, groups):
        xv, wv = self.get(x), self.get(w)
        stride, pad, depthwise = self._conv_params(xv, wv, stride, padding, dilation,
                                                   transposed, groups)
        out = meta_shape(node)[0]
        loc = node.name
        xp = self.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
        if b is not None:
            bv = self.get(b)
            e = self.f.empty(loc, out, loc)
            init = self.f.value(loc + "_b", out)
            self.f.op([init], "linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [0, 2, 3]"
                      % (bv.ssa, bv.ty, e.ssa, e.ty), loc + ".bias")
        else:
            init = self.f.filled(loc, out, loc)
        wk = self._dw_weight(loc, wv) if depthwise else wv
        return self._conv_op(loc, loc, xp, wk, init, stride, depthwise)

    def op_convolution_backward__default(self, node, dy, x, w, bias_sizes, stride, padding,
                                         dilation, transposed, output_padding, groups, mask):
        dyv, xv, wv = self.get(dy), self.get(x), self.get(w)
        stride, pad, depthwise = self._conv_params(xv, wv, stride, padding, dilation,
                                                   transposed, groups)
        loc = node.name
        n, c, h, wd = xv.shape
        f, _, kh, kw = wv.shape
        ho, wo = dyv.shape[2:]
        gi = gw = gb = None
        if mask[0]:
            lows = [kh - 1 - pad[0], kw - 1 - pad[1]]
            if min(lows) < 0:
                raise Unsupported("padding larger than kernel - 1")
            highs = [h + kh - 1 - lows[0] - ((ho - 1) * stride[0] + 1),
                     wd + kw - 1 - lows[1] - ((wo - 1) * stride[1] + 1)]
            if min(highs) < 0:
                raise Unsupported("input gradient geometry")
            dyp = self.pad(loc + ".dpad", loc + "_dyp", dyv, lows, highs, strides=stride)
            if depthwise:
                ef = self.f.empty(loc + "_wflip", [c, kh, kw], loc)
                wf = self.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                                    [amap(3, ["d0", "0", "%d - d1" % (kh - 1), "%d - d2" % (kw - 1)]),
                                     identity_map(3)], ["parallel"] * 3,
                                    lambda bb, a, o: [a[0]])
            else:
                ef = self.f.empty(loc + "_wflip", [c, f, kh, kw], loc)
                wf = self.f.generic(loc + "_wflip", loc + ".flip", [wv], [ef],
                                    [amap(4, ["d1", "d0", "%d - d2" % (kh - 1), "%d - d3" % (kw - 1)]),
                                     identity_map(4)], ["parallel"] * 4,
                                    lambda bb, a, o: [a[0]])
            z = self.f.filled(loc + "_gi", [n, c, h, wd], loc)
            gi = self._conv_op(loc, loc + "_gi", dyp, wf, z, [1, 1], depthwise)
        if mask[1]:
            xp = self.pad(loc + ".pad", loc + "_xp", xv, pad, pad)
            sh, sw = stride
            if depthwise:
                z = self.f.filled(loc + "_gw", [c, kh, kw], loc)
                # domain (c, i, j, n, y, x)
                maps = [amap(6, ["d3", "d0", "d4 * %d + d1" % sh, "d5 * %d + d2" % sw]),
                        amap(6, ["d3", "d0", "d4", "d5"]),
                        amap(6, ["d0", "d1", "d2"])]
                iters = ["parallel"] * 3 + ["reduction"] * 3
                self._work(loc, 2.0 * c * kh * kw * n * ho * wo)
                g3 = self.f.generic(loc + "_gw3", loc, [xp, dyv], [z], maps, iters,
                                    lambda bb, a, o: [bb.add(o[0], bb.mul(a[0], a[1]))])
                gw = self.reshape(loc + ".view", loc + "_gw", g3, list(wv.shape))
            else:
                z = self.f.filled(loc + "_gw", list(wv.shape), loc)
                maps = [amap(7, ["d4", "d1", "d5 * %d + d2" % sh, "d6 * %d + d3" % sw]),
                        amap(7, ["d4", "d0", "d5", "d6"]),
                        amap(7, ["d0", "d1", "d2", "d3"])]
                iters = ["parallel"] * 4 + ["reduction"] * 3
                self._work(loc, 2.0 * f * c * kh * kw * n * ho * wo)
                gw = self.f.generic(loc + "_gw", loc, [xp, dyv], [z], maps, iters,
                                    lambda bb, a, o: [bb.add(o[0], bb.mul(a[0], a[1]))])
        if mask[2]:
            gb = self.reduce(loc + ".bias", loc + "_gb", [dyv], [1],
                             lambda bb, a, acc: bb.add(acc, a[0]))
        return (gi, gw, gb)

    # ------------------------------------------------------------------
    # Batch normalization (training mode)
    # ------------------------------------------------------------------
    def op_native_batch_norm__default(self, node, x, w, b, rm, rv, training, momentum, eps):
        if not training:
            raise Unsupported("batch norm in eval mode")
        xv = self.get(x)
        wv = self.get(w) if w is not None else None
        bv = self.get(b) if b is not None else None
        r = xv.rank
        m = xv.numel // xv.shape[1]
        loc = node.name
        cm = self.channel_map(r)
        mean = self.reduce(loc + ".mean", loc + "_mean", [xv], [1],
                           lambda bb, a, acc: bb.add(acc, bb.mul(a[0], bb.cf(1.0 / m))))

        def var_body(bb, a, acc):
            d = bb.sub(a[0], a[1])
            return bb.add(acc, bb.mul(d, d))
        var = self.reduce(loc + ".var", loc + "_var", [xv, mean], [1], var_body,
                          extra_maps=[cm])

        def inv_body(bb, a):
            v = bb.add(bb.mul(a[0], bb.cf(1.0 / m)), bb.cf(float(eps)))
            return bb.un("math.rsqrt", v)
        invstd = self.ewise(loc + ".invstd", loc + "_invstd", [var], inv_body)
        ins = [xv, mean, invstd] + ([wv] if wv else []) + ([bv] if bv else [])
        e = self.f.empty(loc, xv.shape, loc)
        maps = [identity_map(r)] + [cm] * (len(ins) - 1) + [identity_map(r)]

        def out_body(bb, a, o):
            y = bb.mul(bb.sub(a[0], a[1]), a[2])
            k = 3
            if wv:
                y = bb.mul(y, a[k])
                k += 1
            if bv:
                y = bb.add(y, a[k])
            return [y]
        self._work(loc, xv.numel * 4)
        out = self.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, out_body)
        return (out, mean, invstd)

    def op_native_batch_norm_backward__default(self, node, dy, x, w, rm, rv, save_mean,
                                               save_invstd, train, eps, mask):
        if not train:
            raise Unsupported("batch norm backward in eval mode")
        dyv, xv = self.get(dy), self.get(x)
        wv = self.get(w) if w is not None else None
        mean, invstd = self.get(save_mean), self.get(save_invstd)
        r = xv.rank
        m = xv.numel // xv.shape[1]
        loc = node.name
        cm = self.channel_map(r)
        gsum = self.reduce(loc + ".sum", loc + "_sum", [dyv], [1],
                           lambda bb, a, acc: bb.add(acc, a[0]))

        def dot_body(bb, a, acc):
            return bb.add(acc, bb.mul(a[0], bb.sub(a[1], a[2])))
        dot = self.reduce(loc + ".dot", loc + "_dot", [dyv, xv, mean], [1], dot_body,
                          extra_maps=[None, cm])
        gi = gw = gb = None
        if mask[0]:
            ins = [dyv, xv, mean, invstd, gsum, dot] + ([wv] if wv else [])
            e = self.f.empty(loc, xv.shape, loc)
            maps = [identity_map(r)] * 2 + [cm] * (len(ins) - 2) + [identity_map(r)]

            def gi_body(bb, a, o):
                dyv_, x_, mu, inv, s, d = a[:6]
                xhat = bb.mul(bb.sub(x_, mu), inv)
                proj = bb.mul(xhat, bb.mul(d, inv))         # xhat * sum(dy*xhat)
                t = bb.sub(bb.sub(dyv_, bb.mul(s, bb.cf(1.0 / m))), bb.mul(proj, bb.cf(1.0 / m)))
                scale = bb.mul(inv, a[6]) if wv else inv
                return [bb.mul(t, scale)]
            self._work(loc, xv.numel * 8)
            gi = self.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, gi_body)
        if mask[1] and wv is not None:
            gw = self.ewise(loc + ".gw", loc + "_gw", [dot, invstd],
                            lambda bb, a: bb.mul(a[0], a[1]))
        if mask[2] and wv is not None:
            gb = gsum
        return (gi, gw, gb)

    # ------------------------------------------------------------------
    # Layer normalization
    # ------------------------------------------------------------------
    def op_native_layer_norm__default(self, node, x, normalized_shape, w, b, eps):
        xv = self.get(x)
        r = xv.rank
        k = len(normalized_shape)
        outer = list(range(r - k))
        m = math.prod(xv.shape[r - k:])
        loc = node.name
        om = amap(r, ["d%d" % d for d in outer])
        nm = amap(r, ["d%d" % d for d in range(r - k, r)])
        mean = self.reduce(loc + ".mean", loc + "_mean", [xv], outer,
                           lambda bb, a, acc: bb.add(acc, bb.mul(a[0], bb.cf(1.0 / m))))

        def var_body(bb, a, acc):
            d = bb.sub(a[0], a[1])
            return bb.add(acc, bb.mul(d, d))
        var = self.reduce(loc + ".var", loc + "_var", [xv, mean], outer, var_body, extra_maps=[om])
        rstd = self.ewise(loc + ".rstd", loc + "_rstd", [var], lambda bb, a: bb.un(
            "math.rsqrt", bb.add(bb.mul(a[0], bb.cf(1.0 / m)), bb.cf(float(eps)))))
        ins = [xv, mean, rstd] + ([self.get(w)] if w is not None else []) + \
              ([self.get(b)] if b is not None else [])
        e = self.f.empty(loc, xv.shape, loc)
        maps = [identity_map(r), om, om] + [nm] * (len(ins) - 3) + [identity_map(r)]

        def body(bb, a, o):
            y = bb.mul(bb.sub(a[0], a[1]), a[2])
            i = 3
            if w is not None:
                y = bb.mul(y, a[i])
                i += 1
            if b is not None:
                y = bb.add(y, a[i])
            return [y]
        self._work(loc, xv.numel * 4)
        out = self.f.generic(loc, loc, ins, [e], maps, ["parallel"] * r, body)
        kshape = xv.shape[:r - k] + [1] * k
        return (out, self.reshape(loc + ".mean.view", loc + "_mean_k", mean, kshape),
                self.reshape(loc + ".rstd.view", loc + "_rstd_k", rstd, kshape))

    def op_native_layer_norm_backward__default(self, node, dy, x, normalized_shape, mean, rstd,
                                               w, b, mask):
        dyv, xv = self.get(dy), self.get(x)
        r = xv.rank
        k = len(normalized_shape)
        outer = list(range(r - k))
        m = math.prod(xv.shape[r - k:])
        loc = node.name
        om = amap(r, ["d%d" % d for d in outer])
        nm = amap(r, ["d%d" % d for d in range(r - k, r)])
        mu = self.reshape(loc + ".mean.view", loc + "_mu", self.get(mean), xv.shape[:r - k])
        rs = self.reshape(loc + ".rstd.view", loc + "_rs", self.get(rstd), xv.shape[:r - k])
        wv = self.get(w) if w is not None else None
        ins = [dyv, xv, mu, rs] + ([wv] if wv else [])
        emaps = [None, om, om] + ([nm] if wv else [])

        def wdy(bb, a):
            return bb.mul(a[0], a[4]) if wv else a[0]
        s1 = self.reduce(loc + ".sum", loc + "_s1", ins, outer,
                         lambda bb, a, acc: bb.add(acc, wdy(bb, a)), extra_maps=emaps)
        s2 = self.reduce(loc + ".dot", loc + "_s2", ins, outer,
                         lambda bb, a, acc: bb.add(acc, bb.mul(wdy(bb, a), bb.mul(bb.sub(a[1], a[2]), a[3]))),
                         extra_maps=emaps)
        gi = gw = gb = None
        if mask[0]:
            gins = ins + [s1, s2]
            e = self.f.empty(loc, xv.shape, loc)
            maps = [identity_map(r)] * 2 + [om, om] + ([nm] if wv else []) + [om, om, identity_map(r)]

            def body(bb, a, o):
                xhat = bb.mul(bb.sub(a[1], a[2]), a[3])
                wd = bb.mul(a[0], a[4]) if wv else a[0]
                s1_, s2_ = a[-2], a[-1]
                t = bb.sub(bb.sub(wd, bb.mul(s1_, bb.cf(1.0 / m))), bb.mul(xhat, bb.mul(s2_, bb.cf(1.0 / m))))
                return [bb.mul(t, a[3])]
            self._work(loc, xv.numel * 8)
            gi = self.f.generic(loc, loc, gins, [e], maps, ["parallel"] * r, body)
        inner = list(range(r - k, r))
        if mask[1] and wv is not None:
            gw = self.reduce(loc + ".gw", loc + "_gw", [dyv, xv, mu, rs], inner,
                             lambda bb, a, acc: bb.add(acc, bb.mul(a[0], bb.mul(bb.sub(a[1], a[2]), a[3]))),
                             extra_maps=[None, om, om])
        if mask[2] and b is not None:
            gb = self.reduce(loc + ".gb", loc + "_gb", [dyv], inner,
                             lambda bb, a, acc: bb.add(acc, a[0]))
        return (gi, gw, gb)

    # ------------------------------------------------------------------
    # Pooling
    # ------------------------------------------------------------------
    def _pool_geometry(self, x, kernel, stride, padding, ceil_mode, out):
        k = pair(kernel)
        s = pair(stride, k)
        p = pair(padding, [0, 0])
        h, w = x.shape[2:]
        ho, wo = out[2:]
        # Extra rows/cols on the high side (ceil_mode): windows past the edge.
        extra = [max(0, (ho - 1) * s[0] + k[0] - (h + 2 * p[0])),
                 max(0, (wo - 1) * s[1] + k[1] - (w + 2 * p[1]))]
        return k, s, p, extra

    def op_max_pool2d_with_indices__default(self, node, x, kernel, stride=(), padding=0,
                                            dilation=1, ceil_mode=False):
        xv = self.get(x)
        if any(d != 1 for d in pair(dilation, [1, 1])):
            raise Unsupported("dilated pooling")
        out = tuple_shapes(node).get(0, (None,))[0] or meta_shape(node)
        (kh, kw), (sh, sw), p, extra = self._pool_geometry(xv, kernel, stride, padding,
                                                           ceil_mode, out)
        loc = node.name
        xp = self.pad(loc + ".pad", loc + "_xp", xv, p, [p[0] + extra[0], p[1] + extra[1]],
                      value=NEG_INF)
        win = self.f.empty(loc + "_win", [kh, kw], loc)
        zv = self.f.filled(loc, out, loc, NEG_INF)
        zi = self.f.filled(loc + "_idx", out, loc, 0, "i32")
        maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % sh, "d3 * %d + d5" % sw]),
                amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"]),
                amap(6, ["d0", "d1", "d2", "d3"])]

        def body(bb, a, o):
            i, j = bb.index(4), bb.index(5)
            k = bb.cast_index(bb.apply("d0 * %d + d1" % kw, [i, j]))
            gt = bb.cmpf("ogt", a[0], o[0])
            return [bb.select(gt, a[0], o[0]), bb.select(gt, k, o[1], "i32")]
        self._work(loc, math.prod(out) * kh * kw * 2)
        pv, idx = self.f.generic(loc, loc, [xp, win], [zv, zi], maps,
                                 ["parallel"] * 4 + ["reduction"] * 2, body,
                                 out_names=[loc, loc + "_idx"])
        return (pv, idx)

    def _pool_backward(self, loc, g, x, k, s, p, idx=None, scale=None):
        """dx[n,c,Y,X] = sum over the windows that contain (Y, X) of their
        gradient (times [argmax == position] for max pooling, or scale)."""
        n, c, h, w = x.shape
        ho, wo = g.shape[2:]
        A = [(k[0] - 1) // s[0], (k[1] - 1) // s[1]]
        tot = [max((h - 1 + p[0]) // s[0] + A[0] + 1, ho + A[0]),
               max((w - 1 + p[1]) // s[1] + A[1] + 1, wo + A[1])]
        highs = [tot[0] - ho - A[0], tot[1] - wo - A[1]]
        gp = self.pad(loc + ".dpad", loc + "_gp", g, A, highs)
        ins = [gp]
        rd = ["d0", "d1", "(d2 + %d) floordiv %d - d4 + %d" % (p[0], s[0], A[0]),
              "(d3 + %d) floordiv %d - d5 + %d" % (p[1], s[1], A[1])]
        maps = [amap(6, rd)]
        if idx is not None:
            ip = self.pad(loc + ".ipad", loc + "_ip", idx, A, highs, value=-1, )
            ins.append(ip)
            maps.append(amap(6, rd))
        win = self.f.empty(loc + "_win", [A[0] + 1, A[1] + 1], loc)
        ins.append(win)
        maps.append(amap(6, ["d4", "d5"]))
        maps.append(amap(6, ["d0", "d1", "d2", "d3"]))
        z = self.f.filled(loc, [n, c, h, w], loc)

        def body(bb, a, o):
            yy, xx, aa, b_ = bb.index(2), bb.index(3), bb.index(4), bb.index(5)
            i = bb.apply("(d0 + %d) mod %d + d1 * %d" % (p[0], s[0], s[0]), [yy, aa])
            j = bb.apply("(d0 + %d) mod %d + d1 * %d" % (p[1], s[1], s[1]), [xx, b_])
            ok = bb.andi(bb.emit("arith.cmpi ult, %s, %s : index" % (i, bb.cidx(k[0]))),
                         bb.emit("arith.cmpi ult, %s, %s : index" % (j, bb.cidx(k[1]))))
            if idx is not None:
                code = bb.cast_index(bb.apply("d0 * %d + d1" % k[1], [i, j]))
                ok = bb.andi(ok, bb.cmpi("eq", a[1], code))
                val = a[0]
            else:
                val = bb.mul(a[0], bb.cf(scale))
            return [bb.add(o[0], bb.select(ok, val, bb.cf(0.0)))]
        self._work(loc, n * c * h * w * (A[0] + 1) * (A[1] + 1) * 2)
        return self.f.generic(loc, loc, ins, [z], maps,
                              ["parallel"] * 4 + ["reduction"] * 2, body)

    def op_max_pool2d_with_indices_backward__default(self, node, g, x, kernel, stride, padding,
                                                     dilation, ceil_mode, indices):
        gv, xv = self.get(g), self.get(x)
        k, s, p, _ = self._pool_geometry(xv, kernel, stride, padding, ceil_mode, gv.shape)
        return self._pool_backward(node.name, gv, xv, k, s, p, idx=self.get(indices))

    def _avg_pool(self, loc, xv, out, k, s, p, extra):
        xp = self.pad(loc + ".pad", loc + "_xp", xv, p, [p[0] + extra[0], p[1] + extra[1]])
        win = self.f.empty(loc + "_win", k, loc)
        z = self.f.filled(loc, out, loc)
        maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % s[0], "d3 * %d + d5" % s[1]]),
                amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
        c = 1.0 / (k[0] * k[1])
        self._work(loc, math.prod(out) * k[0] * k[1] * 2)
        return self.f.generic(loc, loc, [xp, win], [z], maps,
                              ["parallel"] * 4 + ["reduction"] * 2,
                              lambda bb, a, o: [bb.add(o[0], bb.mul(a[0], bb.cf(c)))])

    def op_avg_pool2d__default(self, node, x, kernel, stride=(), padding=0, ceil_mode=False,
                               count_include_pad=True, divisor_override=None):
        xv = self.get(x)
        out = meta_shape(node)[0]
        k, s, p, extra = self._pool_geometry(xv, kernel, stride, padding, ceil_mode, out)
        if divisor_override or (not count_include_pad and any(p)) or any(extra):
            raise Unsupported("avg_pool2d variant")
        return self._avg_pool(node.name, xv, out, k, s, p, extra)

    def op_avg_pool2d_backward__default(self, node, g, x, kernel, stride, padding, ceil_mode,
                                        count_include_pad, divisor_override):
        gv, xv = self.get(g), self.get(x)
        k, s, p, extra = self._pool_geometry(xv, kernel, stride, padding, ceil_mode, gv.shape)
        if divisor_override or (not count_include_pad and any(p)) or any(extra):
            raise Unsupported("avg_pool2d variant")
        return self._pool_backward(node.name, gv, xv, k, s, p, scale=1.0 / (k[0] * k[1]))

    def op__adaptive_avg_pool2d__default(self, node, x, output_size):
        xv = self.get(x)
        oh, ow = pair(output_size)
        h, w = xv.shape[2:]
        if oh % h == 0 and ow % w == 0 and (oh, ow) != (h, w):
            # Output bins smaller than a pixel: each is a copy of one pixel.
            out = xv.shape[:2] + [oh, ow]
            e = self.f.empty(node.name, out, node.name)
            self._work(node.name, math.prod(out))
            return self.f.generic(node.name, node.name, [xv], [e],
                                  [amap(4, ["d0", "d1", "d2 floordiv %d" % (oh // h),
                                            "d3 floordiv %d" % (ow // w)]), identity_map(4)],
                                  ["parallel"] * 4, lambda bb, a, o: [a[0]])
        if h % oh or w % ow:
            raise Unsupported("adaptive pooling with uneven windows")
        if (oh, ow) == (h, w):
            return xv
        k = [h // oh, w // ow]
        return self._avg_pool(node.name, xv, xv.shape[:2] + [oh, ow], k, k, [0, 0], [0, 0])

    def op__adaptive_avg_pool2d_backward__default(self, node, g, x):
        gv, xv = self.get(g), self.get(x)
        h, w = xv.shape[2:]
        oh, ow = gv.shape[2:]
        if oh % h == 0 and ow % w == 0 and (oh, ow) != (h, w):
            f = [oh // h, ow // w]
            win = self.f.empty(node.name + "_win", f, node.name)
            z = self.f.filled(node.name, xv.shape, node.name)
            maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % f[0], "d3 * %d + d5" % f[1]]),
                    amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
            self._work(node.name, gv.numel)
            return self.f.generic(node.name, node.name, [gv, win], [z], maps,
                                  ["parallel"] * 4 + ["reduction"] * 2,
                                  lambda bb, a, o: [bb.add(o[0], a[0])])
        if h % oh or w % ow:
            raise Unsupported("adaptive pooling with uneven windows")
        if (oh, ow) == (h, w):
            return gv
        k = [h // oh, w // ow]
        return self._pool_backward(node.name, gv, xv, k, k, [0, 0], scale=1.0 / (k[0] * k[1]))

    def op_upsample_nearest2d__vec(self, node, x, output_size, scale_factors):
        xv = self.get(x)
        out = meta_shape(node)[0]
        f = [out[2] // xv.shape[2], out[3] // xv.shape[3]]
        if out[2] != xv.shape[2] * f[0] or out[3] != xv.shape[3] * f[1]:
            raise Unsupported("non-integer upsampling")
        e = self.f.empty(node.name, out, node.name)
        self._work(node.name, math.prod(out))
        return self.f.generic(node.name, node.name, [xv], [e],
                              [amap(4, ["d0", "d1", "d2 floordiv %d" % f[0], "d3 floordiv %d" % f[1]]),
                               identity_map(4)], ["parallel"] * 4, lambda bb, a, o: [a[0]])

    def op_upsample_nearest2d_backward__vec(self, node, g, output_size, input_size, scale_factors):
        gv = self.get(g)
        out = list(input_size)
        f = [gv.shape[2] // out[2], gv.shape[3] // out[3]]
        if gv.shape[2] != out[2] * f[0] or gv.shape[3] != out[3] * f[1]:
            raise Unsupported("non-integer upsampling")
        win = self.f.empty(node.name + "_win", f, node.name)
        z = self.f.filled(node.name, out, node.name)
        maps = [amap(6, ["d0", "d1", "d2 * %d + d4" % f[0], "d3 * %d + d5" % f[1]]),
                amap(6, ["d4", "d5"]), amap(6, ["d0", "d1", "d2", "d3"])]
        self._work(node.name, gv.numel)
        return self.f.generic(node.name, node.name, [gv, win], [z], maps,
                              ["parallel"] * 4 + ["reduction"] * 2,
                              lambda bb, a, o: [bb.add(o[0], a[0])])

    # ------------------------------------------------------------------
    # Softmax, log-softmax, NLL
    # ------------------------------------------------------------------
def supported_ops():
    """ATen overloads with an executable emitter."""
    ops = []
    for k in dir(Emitter):
        if k.startswith("op_"):
            name = k[3:]
            base, _, overload = name.rpartition("__")
            ops.append("aten.%s.%s" % (base, overload))
    return sorted(set(ops) | set(HANDLERS) | ALIASES | {"operator.getitem"})
