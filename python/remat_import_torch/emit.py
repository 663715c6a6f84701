# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ATen joint graph -> one func.func on tensors (linalg/tensor/arith/math).

The Emitter walks the FX joint graph (trace.py) and binds every node to
its value; how each ATen op becomes ops is lowering/<family>.py.  Each FX
node becomes the ops that compute it, named after the node
(loc("convolution_3"); helper ops of the same node get a suffix:
loc("convolution_3.pad")).  Aliases (detach, clone, getitem) bind to the
value they alias; transposes are materialized lazily (values.Perm);
reshapes are tensor views.

Supported ops are executable (supported_ops(), docs/importer.md); every
other op becomes `remat.op "aten.xxx"` with its shapes and an estimated
cost (opaque.py), so the function still plans but cannot be lowered
(--strict: an error naming every such op, NotExecutable).  In
planning-only mode every op is a remat.op (one planner node per ATen op,
views aliasing their input).
"""

from collections import Counter

import torch

from .argfill import dense_text, element_text
from .graph import ALIASES, elt_of, live_nodes, meta_shape
from .lowering import HANDLERS, Builder, Unsupported
from .mlir import ELT, EXECUTABLE_ELTS, V
from . import cost as costmod
from .opaque import opaque, opaque_node, planning_value
from .trace import Primal
from .values import LazyEmpty, Perm


class NotExecutable(Unsupported):
    """--strict: the ops without an executable lowering, every one of them
    (`ops`: a Counter of overload names, with the reason for a variant)."""

    def __init__(self, ops):
        self.ops = ops
        super().__init__("%d ATen op(s) without an executable lowering: %s" % (
            sum(ops.values()), ", ".join("%s x%d" % kv for kv in sorted(ops.items()))))


class Emitter(Builder):
    """One func.func from a trace.Joint: run() emits it into self.f; then
    arg_primals / result_primals say what its arguments and results are."""

    def __init__(self, joint, name="step", planning_only=False, strict=False, probes=(),
                 f64_sums_from=None, f64_products_from=None):
        super().__init__(name, f64_sums_from, f64_products_from)
        self.j = joint
        self.planning_only = planning_only
        self.strict = strict
        self.vals = {}              # fx node -> V, tuple, Perm or LazyEmpty
        self.unsupported = Counter()
        self.planner_nodes = []     # fx node names of planner nodes, in order (planning-only)
        self.seed = 0               # bernoulli_ ops so far (each draws its own mask)
        self.mask_seeds = {}        # fx node name of each bernoulli_ -> its k (harness.dropout_mask)
        self.seed_v = None          # the %seed argument, once something draws random numbers
        self.probes = list(probes)  # fx node names returned as extra results (debugging)
        self.arg_primals = []       # Primal of every argument, in order
        self.result_primals = []    # Primal of every gradient result, in order

    # ------------------------------------------------------------------
    # Driver
    # ------------------------------------------------------------------
    def run(self):
        if not self.planning_only:
            self._check_executable_dtypes()
        self._arguments()
        for node in self.j.graph_module.graph.nodes:
            if node.op != "call_function":
                continue
            if not self._needed(node):
                continue
            self._emit(node)
        if self.strict and self.unsupported:
            raise NotExecutable(self.unsupported)
        self._results()
        return self

    def _check_executable_dtypes(self):
        """The executable lowerings compute in f32, f64 and the integer
        types: a step holding another dtype (a model in bfloat16) is said
        once, with the planning-only way out."""
        for node in self.j.graph_module.graph.nodes:
            if node.op == "output" or (node.op == "call_function" and not self._needed(node)):
                continue
            ms = meta_shape(node) if node.op != "get_attr" else None
            if ms and ms[1] not in EXECUTABLE_ELTS:
                raise Unsupported("%s holds %s values, which the executable lowering does not "
                                  "compute in (--planning-only plans the step)"
                                  % (node.name, ms[1]))

    def _arguments(self):
        """Inputs first, then parameters (corpus convention); buffers only
        when an emitted op reads them (lazily, in get)."""
        j = self.j
        self.primal_of = {p.node: p for p in j.primals}
        for p in [p for p in j.primals if p.kind == "input"] + \
                 [p for p in j.primals if p.kind == "param"]:
            self._make_arg(p)
        tshape, telt = meta_shape(j.tangent) or ([], "f32")
        t = self.f.value("tangent", tshape, telt)
        self.f.const_lines.append(
            "  %s = arith.constant dense<1.0> : %s loc(\"tangent\")" % (t.ssa, t.ty))
        self.vals[j.tangent] = t

    def _results(self):
        """The loss, every parameter gradient, then the probes."""
        j = self.j
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
            v = self.get(nodes[name])
            if v.elt.startswith("i"):  # printed as f32 (max pooling's window codes)
                v = self.ewise(name + ".probe", name + "_probe", [v],
                               lambda bb, a, elt=v.elt: bb.un("arith.sitofp", a[0],
                                                              "%s to f32" % elt))
            self.f.results.append((v, None))

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

    def step_seed(self):
        """%seed (tensor<i64>): the step's random seed, an argument made where
        the step first draws random numbers (every mask hashes it with its
        own per-op seed, so each step can draw new masks; the harness and
        `check` pass 0)."""
        if self.seed_v is None:
            self.seed_v = self.f.arg("seed", [], "i64")
            self.arg_primals.append(Primal(None, "seed", "seed", [], torch.int64, False,
                                           torch.zeros([], dtype=torch.int64)))
        return self.seed_v

    def _constant(self, n):
        """A tensor the traced code made itself (FX get_attr: `torch.tensor(2.0)`
        in forward, swin's `_tensor_constant0`): a function-level
        arith.constant with its values, in both modes."""
        t = getattr(self.j.graph_module, n.target, None)
        if not isinstance(t, torch.Tensor):
            raise Unsupported("get_attr %s is not a tensor" % n.target)
        t = t.detach()
        if str(t.dtype).replace("torch.", "") not in ELT:
            raise Unsupported("constant %s of dtype %s" % (n.target, t.dtype))
        v = self.f.value(n.name, list(t.shape), elt_of(t.dtype))
        flat = t.reshape(-1).tolist()
        if flat and all(x == flat[0] for x in flat):
            text = "dense<%s>" % element_text(flat[0], v.elt)
        else:
            text = dense_text(flat, v.shape, v.elt)
        self.f.const_lines.append("  %s = arith.constant %s : %s loc(\"%s\")"
                                  % (v.ssa, text, v.ty, n.name))
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
        """The V of a node (lists elementwise, non-nodes as they are),
        materializing a pending Perm or LazyEmpty."""
        if isinstance(n, (list, tuple)):
            return [self.get(x) for x in n]
        if not hasattr(n, "op"):
            return n
        if n not in self.vals:
            if n.op == "placeholder" and n in self.primal_of:
                return self._make_arg(self.primal_of[n])
            if n.op == "get_attr":
                self.vals[n] = self._constant(n)
                return self.vals[n]
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
        fn = HANDLERS.get(name)
        if fn is not None:
            try:
                self.vals[node] = fn(self, node, *node.args, **node.kwargs)
                return
            except Unsupported as e:
                self._note_unsupported(name, str(e))
        else:
            self._note_unsupported(name, None)
        self.vals[node] = opaque_node(self, node, name)

    def node_time(self, node, out_specs):
        """A remat.op's cost for `node`: its FLOP estimate (cost.py)."""
        return costmod.flops(node, out_specs)

    def _note_unsupported(self, name, why):
        self.unsupported[name + ((" (" + why + ")") if why else "")] += 1


def supported_ops():
    """ATen overloads with an executable emitter."""
    return sorted(set(HANDLERS) | ALIASES | {"operator.getitem"})
